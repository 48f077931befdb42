import { AcodeError, ExitCode } from '../errors/acode-error.js';
import type { Variables } from '../engine/template-context.js';

/** `--var k=v` pairs; the value is everything after the first '=' and stays a string. */
export function parseVars(pairs: readonly string[]): Variables {
  const vars: Variables = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const key = eq > 0 ? pair.slice(0, eq).trim() : '';
    if (!/^[A-Za-z_]\w*$/.test(key)) {
      throw new AcodeError(`--var '${pair}' is not of the form name=value (e.g. --var topic="AI agents")`, ExitCode.usage);
    }
    vars[key] = pair.slice(eq + 1);
  }
  return vars;
}
