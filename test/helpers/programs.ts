import { accessSync, constants, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { inject, TestRunner } from 'vitest';

/**
 * Programs some tests drive besides Node: the terminal tests run the CLI in tmux, the completion
 * tests load its scripts in fish and zsh. A machine with Node alone (a newcomer's first `npm test`)
 * lacks them; such a test skips naming what is missing, and the run ends with one line saying how
 * to install it all (test/global-setup.ts). CI sets ACODE_REQUIRE_ALL_TOOLS=1, so that it never
 * passes by skipping.
 */
export type TestProgram = 'tmux' | 'fish' | 'zsh';

/** Whether `program` is an executable file in one of PATH's folders (what the shell's `command -v` finds). */
export function onPath(program: string, path = process.env.PATH ?? ''): boolean {
  return path.split(delimiter).some((folder) => {
    if (!folder) return false;
    try {
      accessSync(join(folder, program), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** The environment variable that turns a skip for a missing program into a failure (CI's `.ci/run` sets it). */
export const requireAllToolsVariable = 'ACODE_REQUIRE_ALL_TOOLS';

/**
 * Skips the running test when one of `programs` is not installed, naming it (a failure instead under
 * ACODE_REQUIRE_ALL_TOOLS=1). Call it in a test or a beforeEach, before the test starts the program.
 */
export function skipWithout(...programs: TestProgram[]): void {
  const missing = programs.filter((program) => !onPath(program));
  if (missing.length === 0) return;
  const names = missing.join(' and ');
  if (process.env[requireAllToolsVariable] === '1') {
    throw new Error(`this test needs ${names}, which is not on PATH, and ${requireAllToolsVariable}=1 forbids skipping it: install ${missing.join(' ')}`);
  }
  const test = TestRunner.getCurrentTest();
  if (!test?.context) throw new Error(`skipWithout(${programs.join(', ')}) is called inside a test or a beforeEach, where there is a test to skip`);
  // Recorded for the run's closing line; the folder is the global setup's (absent when a file runs without it).
  const folder = inject('missingProgramsFolder');
  if (folder) for (const program of missing) writeFileSync(join(folder, program), '');
  test.context.skip(`needs ${names}, not installed`);
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where skipWithout leaves one empty file per missing program, for the run's closing line. */
    missingProgramsFolder: string;
  }
}
