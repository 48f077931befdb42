import { homedir } from 'node:os';
import { join } from 'node:path';

/** `ACODE_HOME`, else `${XDG_DATA_HOME:-~/.local/share}/acode`. */
export function defaultHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ACODE_HOME) return env.ACODE_HOME;
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'acode');
}
