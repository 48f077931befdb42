import { afterAll } from 'vitest';

/**
 * Imported before Ink (first, or before Ink is imported dynamically): Ink draws only a final frame
 * where it thinks it runs in CI (is-in-ci reads CI once, as Ink loads), and the file that imports
 * this draws every frame, as on a person's terminal. The variables are put back after the file.
 */
const was = { CI: process.env.CI, CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION };
process.env.CI = '0';
process.env.CONTINUOUS_INTEGRATION = '0';
afterAll(() => {
  for (const [name, value] of Object.entries(was)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});
