import { isAcodeError } from '../errors/acode-error.js';
import type { CommandContext } from './command-context.js';

/**
 * Resumes the session the browser picked, in the run view on the main screen, and says how it
 * ended — in the words the browser shows when it opens again on that session. An expected failure
 * (a refused resume, changed files aborted) is printed as the CLI prints it and told the same way;
 * a bug still throws.
 */
export async function resumeFromBrowser(ctx: CommandContext, id: string): Promise<string> {
  const [{ resumeCommand }, { redact }] = await Promise.all([import('./resume.js'), import('../secrets/redactor.js')]);
  const short = id.slice(0, 8);
  try {
    const code = await resumeCommand(ctx, id, { json: false, dryRun: false });
    return `the resume of ${short} ended (exit ${code}); its run view stays on the main screen, shown when you quit (q)`;
  } catch (error) {
    if (!isAcodeError(error)) throw error;
    const message = redact(`${error.code ? `${error.code}: ` : ''}${error.message}`);
    ctx.stderr.write(`acode: ${message}\n`);
    return `the resume of ${short} stopped (exit ${error.exitCode}): ${message}`;
  }
}
