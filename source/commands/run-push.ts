import { loadResumeConfig } from '../config/resume-config.js';
import type { PreparedRun } from '../session/prepared-run.js';
import { defaultHome } from '../store/acode-home.js';
import { summarize } from '../store/session-record.js';
import type { BackgroundPush } from '../store/remote/background-push.js';
import type { RemoteClaim } from '../store/remote/remote-claim.js';
import { usableRemoteTarget } from '../store/remote/remote-url.js';
import { openRepository, type CommandContext } from './command-context.js';

/**
 * A run's background push to the team store, when one is configured and the session is saved;
 * undefined otherwise (nothing about the remote is loaded then). It never keeps a run from running.
 * It holds the store's lease of the session beside the lock file (taking over the connection and
 * lease a resume took, `claim`), and ties it to the run's lease: lost to another machine, the run stops.
 */
export async function startRunPush(ctx: CommandContext, prepared: PreparedRun, claim?: RemoteClaim): Promise<BackgroundPush | undefined> {
  if (!prepared.saved) return undefined;
  // A URL that cannot be used stops no run: the session runs, and says (once) why nothing is pushed.
  const target = claim?.target ?? usableRemoteTarget(defaultHome(ctx.env), ctx.cwd, ctx.env, (line) => ctx.stderr.write(line));
  if (!target) return undefined;
  const repository = openRepository(ctx);
  const { startBackgroundPush } = await import('../store/remote/background-push.js');
  const epoch = prepared.lease?.lock.epoch ?? 0;
  const timeoutMs = prepared.lease?.timeoutMs ?? loadResumeConfig(repository.home, ctx.cwd).lock_timeout_seconds * 1000;
  const push = startBackgroundPush(repository.home, target, prepared.sessionId, async () => summarize((await repository.open(prepared.sessionId)).record), { claim, epoch, timeoutMs });
  push.lease.raiseEpoch(epoch);
  if (prepared.lease) prepared.lease.remote = push.lease;
  return push;
}
