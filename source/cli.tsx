#!/usr/bin/env node
import { createInterface } from 'node:readline/promises';
import type { CommandContext } from './commands/command-context.js';
import { errorCodeFor, isAcodeError, ExitCode, type ErrorCode } from './errors/acode-error.js';
import { suspendJob } from './job-control.js';
import { drained, endQuietlyOnClosedPipe } from './output-streams.js';
import { redact } from './secrets/redactor.js';

function hardExit(code: ExitCode): never {
  process.exit(code);
}

/**
 * A bug's stack goes to stderr as Node would print it, but through the redactor: an error's message
 * may quote what it read — a damaged file holding a key, a server's answer echoing one.
 */
function reportBug(error: unknown): void {
  const text = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
  process.stderr.write(redact(`acode: internal error (a bug in acode; please report it with what follows)\n${text}\n`));
}
const crashed = (error: unknown) => {
  reportBug(error);
  process.exit(ExitCode.failure);
};
process.on('uncaughtException', crashed);
process.on('unhandledRejection', crashed);

let outputFailed = false;
endQuietlyOnClosedPipe(process.stdout, (error) => {
  outputFailed = true;
  process.stderr.write(`acode: cannot write the output (${error.code === 'ENOSPC' ? 'no space left on the device, ENOSPC' : (error.code ?? error.message)}); what was written is incomplete\n`);
});
endQuietlyOnClosedPipe(process.stderr, () => {});

const context: CommandContext = {
  stdout: process.stdout,
  stderr: process.stderr,
  interactive: Boolean(process.stdout.isTTY && process.stdin.isTTY),
  color: Boolean(process.stderr.isTTY) && !('NO_COLOR' in process.env),
  env: process.env,
  cwd: process.cwd(),
  hardExit,
  async confirm(question) {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    // Ctrl+Z at the question: readline stops this process alone, and once continued leaves its
    // input paused — the question hung up and the command ended (exit 13). The whole job stops, as
    // from acode's screens, and the question is asked again where the shell left the cursor.
    rl.on('SIGTSTP', () => {
      suspendJob(process.stdin);
      rl.prompt(true);
    });
    // Ctrl+D, and Ctrl+C (readline closes on it when nobody listens for SIGINT), end the input
    // without an answer: no — on a line of its own, as the question's line was never ended.
    let answered = false;
    const ended = new Promise<string>((resolve) =>
      rl.once('close', () => {
        if (!answered) process.stderr.write('\n');
        resolve('');
      }),
    );
    try {
      const answer = await Promise.race([rl.question(question), ended]);
      answered = true;
      return /^y(es)?$/i.test(answer.trim());
    } catch {
      // Ctrl+C at the question (readline's AbortError): no, as a person who stopped it means.
      answered = true;
      process.stderr.write('\n');
      return false;
    } finally {
      rl.close();
    }
  },
};

/** `acode` alone in a terminal opens the browser: it skips argument parsing (meow reads and normalises package.json) for a faster first frame. */
async function main(): Promise<ExitCode> {
  if (process.argv.length <= 2 && context.interactive) {
    process.title = 'acode';
    const { browseCommand } = await import('./commands/browse.js');
    return browseCommand(context);
  }
  const { dispatch } = await import('./cli-dispatch.js');
  return dispatch(context);
}

/**
 * A file acode cannot use as it must — someone else's (a `sudo acode …` left it root's), a folder
 * where a file belongs, a file made immutable: no bug, but the machine's state. Named with what to
 * do, where a stack trace was printed as an internal error. Undefined for any other error.
 */
function unusableFile(error: unknown): string | undefined {
  const { code, path, syscall } = (error ?? {}) as { code?: unknown; path?: unknown; syscall?: unknown };
  if (typeof path !== 'string' || typeof code !== 'string') return undefined;
  const verb = typeof syscall !== 'string' ? 'change' : /^(open|read|scandir|stat|lstat|access)$/.test(syscall) ? 'read' : /^(rm|rmdir|unlink)$/.test(syscall) ? 'remove' : 'change';
  if (code === 'EACCES' || code === 'EPERM') return `cannot ${verb} ${path}: permission denied (${code}); it may belong to another user (was acode run with sudo?) or be made immutable: give it back to yours (chown, chattr -i), then try again`;
  if (code === 'EISDIR') return `cannot ${verb} ${path}: it is a folder where acode keeps a file (EISDIR); move it away, then try again`;
  if (code === 'ENOTDIR') return `cannot ${verb} ${path}: part of that path is a file where acode keeps a folder (ENOTDIR); move it away, then try again`;
  if (code === 'EEXIST') return `cannot ${verb} ${path}: something else is in the way there (EEXIST); move it away, then try again`;
  if (code === 'ELOOP') return `cannot ${verb} ${path}: a symbolic link loop (ELOOP); fix the link, then try again`;
  return undefined;
}

/**
 * Whether `--json` was typed (before a `--`): a script that asked for JSON gets its errors as JSON
 * too. Read from argv itself, so that an error before or during argument parsing is said the same way.
 */
function jsonRequested(argv: readonly string[]): boolean {
  for (const arg of argv) {
    if (arg === '--') return false;
    if (arg === '--json' || arg === '--json=true') return true;
  }
  return false;
}

/**
 * An expected failure on stderr: `acode: CODE: message` (a code given where it is raised), or with
 * --json one object a script can parse, always with a code (its exit code's when none was given).
 */
function reportFailure(code: ErrorCode | undefined, exit: ExitCode, message: string): void {
  if (jsonRequested(process.argv.slice(2))) {
    process.stderr.write(`${JSON.stringify({ error: { code: code ?? errorCodeFor(exit), exit, message: redact(message) } })}\n`);
  } else {
    process.stderr.write(redact(`acode: ${code ? `${code}: ` : ''}${message}\n`));
  }
}

let exitCode: ExitCode;
try {
  exitCode = await main();
} catch (error) {
  if (isAcodeError(error)) {
    exitCode = error.exitCode;
    reportFailure(error.code, exitCode, error.message);
  } else if (unusableFile(error)) {
    exitCode = ExitCode.failure;
    reportFailure(undefined, exitCode, unusableFile(error)!);
  } else {
    reportBug(error);
    exitCode = ExitCode.failure;
  }
}
// Exit once the output has reached its reader (a pipe is written asynchronously, and exit drops
// what is still queued), but no later: idle keep-alive sockets of the HTTP client would otherwise
// hold the process open.
await Promise.all([drained(process.stdout), drained(process.stderr)]);
// A write that failed (a full disk, /dev/full) says so in an 'error' event a tick later — a file is
// written synchronously, so nothing waits to drain: exit comes after it, or it would exit 0 with
// the output cut short and nothing said.
await new Promise((resolve) => setImmediate(resolve));
process.exit(outputFailed && exitCode === ExitCode.ok ? ExitCode.failure : exitCode);
