import { ExitCode } from '../errors/acode-error.js';
import { formatAgo } from '../human-units.js';
import { loadRemoteConfig } from '../config/resume-config.js';
import { remoteTarget } from '../store/remote/remote-url.js';
import { pendingBySession } from '../store/remote/pending-events.js';
import { readLastAttempt } from '../store/remote/sync-state.js';
import { openRepository, paint, type CommandContext } from './command-context.js';

/**
 * `acode status [<id>] [--json]`: whether the sessions (or one) have reached the team store. What
 * is pending is pushed first, for flushBudgetMs at most (no connection when nothing is); then the
 * status is read from local files (the cursors and the last attempt), reachable or not.
 */
export async function statusCommand(ctx: CommandContext, idOrPrefix: string | undefined, flags: { json: boolean }): Promise<ExitCode> {
  const repository = openRepository(ctx);
  const target = remoteTarget(repository.home, ctx.cwd, ctx.env);
  if (!target) {
    const variable = loadRemoteConfig(repository.home, ctx.cwd).url_env;
    if (flags.json) ctx.stdout.write(`${JSON.stringify({ remote: null, state: 'off', pending_events: 0, last_attempt: null, sessions: [] }, null, 2)}\n`);
    else ctx.stdout.write(`Sync: off (no team store configured; set ${variable} to a postgres:// URL)\n`);
    return ExitCode.ok;
  }
  const id = idOrPrefix === undefined ? undefined : await repository.resolveId(idOrPrefix);
  const rows = (await repository.list({ write: false })).filter((row) => id === undefined || row.session_id === id);
  // What is pending goes to the store first (a few seconds at most), then the status is read from local files.
  const { flushForStatus, flushBudgetMs } = await import('../store/remote/flush-home.js');
  const flushed = await flushForStatus(repository.home, target, rows);
  const sessions = pendingBySession(repository.home, target, rows);
  const pending = sessions.reduce((sum, session) => sum + session.pending_events, 0);
  const last = readLastAttempt(repository.home, target.shown) ?? null;
  const unreadable = sessions.filter((session) => session.unreadable !== undefined).length;
  const state = pending === 0 && unreadable === 0 ? 'up_to_date' : 'degraded';
  if (flags.json) {
    ctx.stdout.write(`${JSON.stringify({ remote: target.shown, state, pending_events: pending, last_attempt: last && { at: last.at, ok: last.ok, reason: last.reason, next_retry_at: last.next_retry_at ?? null }, sessions }, null, 2)}\n`);
    return ExitCode.ok;
  }
  const lines = [`Remote: ${target.shown} (${target.variable})`];
  const unreadableNote = unreadable > 0 ? `, ${unreadable} session${unreadable === 1 ? '' : 's'} unreadable` : '';
  lines.push(state === 'up_to_date' ? `Sync: ${paint(ctx, 'green', 'Up to date ✓')}` : `Sync: ${paint(ctx, 'red', `DEGRADED - ${pending} event${pending === 1 ? '' : 's'} pending${unreadableNote}`)}`);
  lines.push(`Last attempt: ${last ? `${formatAgo(Date.parse(last.at))} (${last.at}), ${last.ok ? 'succeeded' : 'failed'}` : 'never'}`);
  if (last && !last.ok && last.reason) lines.push(`Reason: ${last.reason}`);
  if (last && !last.ok && last.next_retry_at && Date.parse(last.next_retry_at) > Date.now()) lines.push(`Next retry: ${last.next_retry_at} (by the run pushing in the background)`);
  for (const session of sessions) {
    if (session.pending_events > 0) lines.push(`  ${session.session_id}  ${session.pending_events} pending${session.waiting ? ` (held back: ${session.waiting})` : ''}`);
    if (session.unreadable) lines.push(`  ${session.session_id}  not pushed: ${session.unreadable}`);
  }
  if (flushed?.outOfTime) lines.push(`The store took more than ${flushBudgetMs / 1000} s to take them: 'acode sync' pushes the rest.`);
  else if (pending > 0) lines.push(`Push them with 'acode sync'.`);
  ctx.stdout.write(`${lines.join('\n')}\n`);
  return ExitCode.ok;
}
