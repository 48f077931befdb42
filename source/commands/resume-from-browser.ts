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

/**
 * Forks the session the browser picked from one of its steps (`f`), as `acode fork <id> --from-step
 * <step>` does, in the run view on the main screen: the new session's id (to open the browser on)
 * and how it ended, or — refused before a session was made — why.
 */
export async function forkFromBrowser(ctx: CommandContext, id: string, step: string): Promise<{ id: string; message: string }> {
  const [{ forkAndRun }, { redact }] = await Promise.all([import('./fork.js'), import('../secrets/redactor.js')]);
  const short = id.slice(0, 8);
  try {
    const { code, sessionId } = await forkAndRun(ctx, id, { fromStep: step, json: false });
    return { id: sessionId, message: `the fork of ${short} from step ${step} is session ${sessionId.slice(0, 8)}; it ended (exit ${code}); its run view stays on the main screen, shown when you quit (q)` };
  } catch (error) {
    if (!isAcodeError(error)) throw error;
    const message = redact(`${error.code ? `${error.code}: ` : ''}${error.message}`);
    ctx.stderr.write(`acode: ${message}\n`);
    return { id, message: `the fork of ${short} from step ${step} stopped (exit ${error.exitCode}): ${message}` };
  }
}
