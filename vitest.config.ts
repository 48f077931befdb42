import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // React's act() warnings are for React DOM tests, not Ink.
    env: { FORCE_COLOR: '0' },
  },
});
