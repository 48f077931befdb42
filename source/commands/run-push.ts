import type { PreparedRun } from '../session/prepared-run.js';
import { defaultHome } from '../store/acode-home.js';
import { summarize } from '../store/session-record.js';
import type { BackgroundPush } from '../store/remote/background-push.js';
import { remoteTarget } from '../store/remote/remote-url.js';
import { openRepository, type CommandContext } from './command-context.js';

/**
 * A run's background push to the team store, when one is configured and the session is saved;
 * undefined otherwise (nothing about the remote is loaded then). It never keeps a run from running.
 */
export async function startRunPush(ctx: CommandContext, prepared: PreparedRun): Promise<BackgroundPush | undefined> {
  if (!prepared.saved) return undefined;
  let target: ReturnType<typeof remoteTarget>;
  try {
    target = remoteTarget(defaultHome(ctx.env), ctx.cwd, ctx.env);
  } catch (error) {
    // A URL that cannot be used stops no run: the session runs, and says why nothing is pushed.
    ctx.stderr.write(`acode: ${(error as Error).message}; this run is not pushed to the team store\n`);
    return undefined;
  }
  if (!target) return undefined;
  const repository = openRepository(ctx);
  const { startBackgroundPush } = await import('../store/remote/background-push.js');
  return startBackgroundPush(repository.home, target, prepared.sessionId, async () => summarize((await repository.open(prepared.sessionId)).record));
}
