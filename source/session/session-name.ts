import { AcodeError, ExitCode } from '../errors/acode-error.js';

/**
 * A session's human name (`acode run --name nightly-report`): letters, digits, `.`, `_`, `-`, at
 * most 64, starting with a letter or digit. A name made only of hex digits is refused: it would read
 * as an id prefix wherever an id is accepted.
 */
const namePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const idShaped = /^[0-9a-f]+$/;

/** Whether `text` may be a session name (not whether a session has it). */
export function isSessionName(text: string): boolean {
  return namePattern.test(text) && !idShaped.test(text);
}

/** `name` if it may name a session; otherwise an AcodeError (exit 2) saying what a name may be. */
export function checkSessionName(name: string): string {
  if (isSessionName(name)) return name;
  if (idShaped.test(name)) throw new AcodeError(`--name '${name}' looks like a session id (only hex digits); add a letter beyond a–f, e.g. '${name}-run'`, ExitCode.usage);
  throw new AcodeError(`--name '${name}' is not a session name: use up to 64 letters, digits, '.', '_' or '-', starting with a letter or digit`, ExitCode.usage);
}

/** What a list names a session by: its name with its workflow, or the workflow alone. */
export function sessionTitle(row: { name?: string; workflow_name: string }): string {
  return row.name === undefined ? row.workflow_name : `${row.name} · ${row.workflow_name}`;
}
