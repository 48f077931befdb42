import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Names, once at the end, the programs (tmux, fish, zsh) tests were skipped for: test/helpers/programs.ts.
    globalSetup: ['test/global-setup.ts'],
    // React's act() warnings are for React DOM tests, not Ink.
    env: { FORCE_COLOR: '0' },
  },
});
