import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

/**
 * Collects the programs tests were skipped for (test/helpers/programs.ts) across the worker
 * processes, and prints one line at the end of the run naming them and how to install them: a
 * newcomer sees why some tests did not run, not a wall of ENOENT failures.
 */
export default function setup(project: TestProject): () => void {
  const folder = mkdtempSync(join(tmpdir(), 'acode-missing-programs-'));
  project.provide('missingProgramsFolder', folder);
  return () => {
    const missing = readdirSync(folder).sort();
    rmSync(folder, { recursive: true, force: true });
    if (missing.length === 0) return;
    const list = missing.join(' ');
    console.log(`\nSkipped the tests that need ${missing.join(', ')} (not installed): apt-get install ${list} (Debian, Ubuntu) or brew install ${list} (macOS), then run them again. CI sets ACODE_REQUIRE_ALL_TOOLS=1 to fail instead.`);
  };
}
