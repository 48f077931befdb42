import type { Variables } from '../engine/template-context.js';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { redactedMark } from '../secrets/redactor.js';

/**
 * Variables a session stored without their value: one that held a key (a registered secret, or
 * text shaped like one — `sk-…`, `api_key=…`) is stored [REDACTED], as everything acode keeps is.
 * Run again with that in its place, a resumed step would be asked something else than the run
 * started with (an artifact named `redacted_-report.md`): the person gives the value back instead.
 */
export function withheldVariables(stored: Variables): string[] {
  return Object.entries(stored).flatMap(([name, value]) => (typeof value === 'string' && value.includes(redactedMark) ? [name] : []));
}

/**
 * The variables a resume (or fork) of session `sessionId` runs with: those stored, with the
 * withheld ones given back by `--var`, and the withheld ones still missing. A `--var` for a stored
 * variable is refused — a session runs with the values it started with — before anything changes.
 */
export function restoreVariables(stored: Variables, given: Variables, sessionId: string, command: 'resume' | 'fork'): { variables: Variables; missing: string[] } {
  const withheld = withheldVariables(stored);
  const stray = Object.keys(given).find((name) => !withheld.includes(name));
  if (stray !== undefined) {
    const needs = withheld.length ? `; it needs ${withheld.map((name) => `--var ${name}=…`).join(' ')}` : '';
    throw new AcodeError(
      stray in stored
        ? `--var ${stray}: session ${sessionId} keeps the value it started with; --var on ${command} only gives back a variable the session stored without its value${needs}; to change a variable, run the spec anew`
        : `--var ${stray}: session ${sessionId} has no variable '${stray}'${needs}`,
      ExitCode.usage,
    );
  }
  return { variables: { ...stored, ...given }, missing: withheld.filter((name) => !(name in given)) };
}

/** What refuses a resume (or fork) while `missing` variables have not been given back: names them and the command that does. */
export function missingVariablesError(missing: readonly string[], sessionId: string, command: 'resume' | 'fork'): AcodeError {
  const one = missing.length === 1;
  return new AcodeError(
    `session ${sessionId} stored ${one ? `variable '${missing[0]}'` : `variables ${missing.map((name) => `'${name}'`).join(', ')}`} without ${one ? 'its value' : 'their values'}: it held a key, or text shaped like one, which acode keeps out of its files. Give ${one ? 'it' : 'them'} back as the run started: acode ${command} ${sessionId} ${missing.map((name) => `--var ${name}=…`).join(' ')}`,
    ExitCode.usage,
  );
}
