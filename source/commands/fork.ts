import type { ExitCode } from '../errors/acode-error.js';
import { forkSession } from '../session/fork.js';
import { checkSessionName } from '../session/session-name.js';
import { openRepository, type CommandContext } from './command-context.js';
import { parseVars } from './parse-vars.js';
import { runSession } from './run-session.js';

export interface ForkFlags {
  /** `--spec <file>`: an edited spec to run instead of the source's; steps whose input it leaves unchanged are reused. */
  spec?: string;
  /** The step to run again from: a chain's 1-based number, or a step id; what does not depend on it is reused. Default: the first unfinished step. */
  fromStep?: string;
  json: boolean;
  /** `--name`: the new session's unique name. */
  name?: string;
  /** `--var k=v`: variables the source session stored without their value, given back. */
  vars?: readonly string[];
}

/**
 * `acode fork <id> [--from-step N]`: a new session with the same spec snapshot, variables and working
 * directory, reusing the source's completed steps before N — the way out of a terminal state.
 */
export async function forkCommand(ctx: CommandContext, id: string, flags: ForkFlags): Promise<ExitCode> {
  const prepared = await forkSession(openRepository(ctx), { id, specPath: flags.spec, fromStep: flags.fromStep, name: flags.name === undefined ? undefined : checkSessionName(flags.name), cwd: ctx.cwd, env: ctx.env, vars: parseVars(flags.vars ?? []) });
  const announce = () => {
    const { from, reused, edited } = prepared.intro;
    ctx.stderr.write(edited === undefined
      ? `acode: forked session ${from} → ${prepared.sessionId}, reusing ${reused} step${reused === 1 ? '' : 's'}\n`
      : `acode: forked session ${from} → ${prepared.sessionId} with ${edited}: ${reused} completed step${reused === 1 ? '' : 's'} may be reused, each where its input is unchanged\n`);
  };
  return runSession(ctx, prepared, { json: flags.json, announce });
}
