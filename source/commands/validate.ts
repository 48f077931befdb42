import { ExitCode } from '../errors/acode-error.js';
import { unenforceableCap } from '../session/cost-cap.js';
import { checkSpecText, readSpecText } from '../spec/load-spec.js';
import { describePattern } from '../spec/pattern-summary.js';
import { formatProblem } from '../spec/spec-problem.js';
import { parsePositioned } from '../spec/yaml-positions.js';
import type { CommandContext } from './command-context.js';

/**
 * `acode validate <spec> [--json]`: every problem with file:line:column; exit 2 when any is an error.
 * With --json, one object on stdout: `{file, valid, pattern, provider, problems: [{file, line, column, message, severity}]}`.
 */
export async function validateCommand(ctx: CommandContext, file: string, flags: { json?: boolean } = {}): Promise<ExitCode> {
  const text = readSpecText(file);
  const checked = checkSpecText(text, file);
  const { problems } = checked;
  // A spending cap the price table cannot count is refused by run: validate says so where it is set.
  const uncapped = checked.spec && (await unenforceableCap(checked.spec));
  if (uncapped) problems.push({ severity: 'error', file, ...parsePositioned(text).locate(['runtime', 'budgets', 'max_cost_usd']), message: uncapped });
  const spec = uncapped ? undefined : checked.spec;
  if (flags.json) {
    const shown = problems.map(({ file: where, line, column, message, severity }) => ({ file: where, line, column, message, severity }));
    ctx.stdout.write(`${JSON.stringify({ file, valid: spec !== undefined, pattern: spec ? describePattern(spec) : null, provider: spec?.runtime.provider ?? null, problems: shown }, null, 2)}\n`);
    return spec ? ExitCode.ok : ExitCode.usage;
  }
  for (const problem of problems) ctx.stderr.write(`${formatProblem(problem)}\n`);
  if (!spec) {
    const errors = problems.filter((p) => p.severity === 'error').length;
    ctx.stderr.write(`${file}: ${errors} error${errors === 1 ? '' : 's'}; fix them and validate again\n`);
    return ExitCode.usage;
  }
  ctx.stdout.write(`${file}: valid (${describePattern(spec)}, provider ${spec.runtime.provider})${problems.length ? `, ${problems.length} warning${problems.length === 1 ? '' : 's'}` : ''}\n`);
  return ExitCode.ok;
}
