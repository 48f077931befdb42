import type { ExitCode } from '../errors/acode-error.js';
import { forkSession } from '../session/fork.js';
import { openRepository, type CommandContext } from './command-context.js';
import { runSession } from './run-session.js';

export interface ForkFlags {
  /** 1-based step to run again from; steps before it are reused. Default: after the last completed step. */
  fromStep?: number;
  json: boolean;
}

/**
 * `acode fork <id> [--from-step N]`: a new session with the same spec snapshot, variables and working
 * directory, reusing the source's completed steps before N — the way out of a terminal state.
 */
export async function forkCommand(ctx: CommandContext, id: string, flags: ForkFlags): Promise<ExitCode> {
  const prepared = await forkSession(openRepository(ctx), { id, fromStep: flags.fromStep, cwd: ctx.cwd, env: ctx.env });
  const announce = () => {
    const { from, reused } = prepared.intro;
    ctx.stderr.write(`acode: forked session ${from} → ${prepared.sessionId}, reusing ${reused} step${reused === 1 ? '' : 's'}\n`);
  };
  return runSession(ctx, prepared, { json: flags.json, announce });
}
