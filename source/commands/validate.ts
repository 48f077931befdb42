import { ExitCode } from '../errors/acode-error.js';
import { checkSpecText, readSpecText } from '../spec/load-spec.js';
import { describePattern } from '../spec/pattern-summary.js';
import { formatProblem } from '../spec/spec-problem.js';
import type { CommandContext } from './command-context.js';

/** `acode validate <spec>`: every problem with file:line:column; exit 2 when any is an error. */
export function validateCommand(ctx: CommandContext, file: string): ExitCode {
  const { spec, problems } = checkSpecText(readSpecText(file), file);
  for (const problem of problems) ctx.stderr.write(`${formatProblem(problem)}\n`);
  if (!spec) {
    const errors = problems.filter((p) => p.severity === 'error').length;
    ctx.stderr.write(`${file}: ${errors} error${errors === 1 ? '' : 's'}; fix them and validate again\n`);
    return ExitCode.usage;
  }
  ctx.stdout.write(`${file}: valid (${describePattern(spec)}, provider ${spec.runtime.provider})${problems.length ? `, ${problems.length} warning${problems.length === 1 ? '' : 's'}` : ''}\n`);
  return ExitCode.ok;
}
