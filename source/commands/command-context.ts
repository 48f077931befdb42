import type { ExitCode } from '../errors/acode-error.js';
import { defaultHome } from '../store/acode-home.js';
import { SessionStore } from '../store/session-store.js';

/** What a command may touch of the outside world, injected so tests can run commands in-process. */
export interface CommandContext {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** A person at a terminal: stdin and stdout are TTYs (CI and pipes get plain lines). */
  interactive: boolean;
  color: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Leaves at once (second Ctrl+C); only cli.tsx implements it. */
  hardExit(code: ExitCode): never;
  /** Asks a yes/no question on the terminal. */
  confirm(question: string): Promise<boolean>;
}

export function openStore(ctx: CommandContext): SessionStore {
  return new SessionStore(defaultHome(ctx.env));
}

/** Paints text when colour is on (NO_COLOR and pipes turn it off). */
export function paint(ctx: CommandContext, code: number, text: string): string {
  return ctx.color ? `\u001B[${code}m${text}\u001B[39m` : text;
}
