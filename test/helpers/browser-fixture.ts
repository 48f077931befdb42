import { join } from 'node:path';
import { generateSessions } from '../../bench/generate-sessions.js';
import type { CommandContext } from '../../source/commands/command-context.js';
import { tempDir } from './temp-dir.js';

/** A command context over a generated store: what `acode` would see in `cwd`. */
export function generatedStore(count: number, options: { hereEvery?: number } = {}) {
  const root = tempDir();
  const cwd = join(root, 'project');
  const home = join(root, 'home');
  const every = options.hereEvery ?? 1;
  const store = generateSessions(home, count, (i) => (i % every === 0 ? cwd : join(root, `other-${i % 7}`)));
  const ctx: CommandContext = {
    stdout: process.stdout,
    stderr: process.stderr,
    interactive: false,
    color: false,
    env: { ACODE_HOME: home },
    cwd,
    hardExit: () => {
      throw new Error('hardExit in a test');
    },
    confirm: async () => false,
  };
  return { ...store, cwd, ctx };
}
