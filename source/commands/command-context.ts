import type { ExitCode } from '../errors/acode-error.js';
import { hueCodes, type Hue } from '../session/status-words.js';
import { defaultHome } from '../store/acode-home.js';
import type { SessionRepository } from '../session/repository.js';
import { LocalSessionRepository } from '../store/local-repository.js';

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

/** The sessions: today's local files in $ACODE_HOME (opened on first use); repairs to the index are said on stderr unless quiet (the browser's screen). */
export function openRepository(ctx: CommandContext, options: { quiet?: boolean } = {}): SessionRepository {
  return new LocalSessionRepository(defaultHome(ctx.env), options.quiet ? undefined : (message) => ctx.stderr.write(`acode: ${message}\n`));
}

/** Paints text in a status colour when colour is on (NO_COLOR and pipes turn it off). */
export function paint(ctx: CommandContext, hue: Hue, text: string): string {
  return ctx.color ? `\u001B[${hueCodes[hue]}m${text}\u001B[39m` : text;
}
