import { ExitCode } from '../errors/acode-error.js';
import { printable } from '../printable-text.js';
import { sessionTitle } from '../session/session-name.js';
import { requireRemote } from '../store/remote/remote-url.js';
import { syncAll } from '../store/remote/sync-all.js';
import { openRepository, type CommandContext } from './command-context.js';

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** `acode sync`: pushes every session's pending events (and the blobs they name) to the team store now. */
export async function syncCommand(ctx: CommandContext): Promise<ExitCode> {
  const repository = openRepository(ctx);
  const target = requireRemote(repository.home, ctx.cwd, ctx.env);
  const rows = await repository.list({ write: false });
  const titles = new Map(rows.map((row) => [row.session_id, printable(sessionTitle(row).replace(/[\t\n]/g, ' '))]));
  let events = 0;
  let sessions = 0;
  let waiting = 0;
  let unreadable = 0;
  await syncAll(repository.home, target, rows, (push) => {
    if (push.events_sent === 0 && push.pending_events === 0) return;
    events += push.events_inserted;
    if (push.events_sent > 0) sessions++;
    waiting += push.pending_events;
    const blobs = push.blobs_inserted > 0 ? `, ${plural(push.blobs_inserted, 'blob')}` : '';
    const missing = push.blobs_missing > 0 ? `, ${plural(push.blobs_missing, 'blob')} missing locally` : '';
    const held = push.waiting ? `; ${plural(push.pending_events, 'event')} held back: ${push.waiting}` : '';
    ctx.stdout.write(`${push.session_id}  ${titles.get(push.session_id) ?? ''}  ${plural(push.events_inserted, 'new event')} (${push.events_sent} sent)${blobs}${missing}${held}\n`);
  }, (sessionId, error) => {
    unreadable++;
    ctx.stderr.write(`acode: not pushed: ${error.message}\n`);
  });
  const tail = waiting > 0 ? `; ${plural(waiting, 'event')} still pending (run 'acode sync' again)` : '';
  ctx.stderr.write(events === 0 && waiting === 0 ? `team store ${target.shown}: up to date ✓\n` : `team store ${target.shown}: ${plural(events, 'new event')} from ${plural(sessions, 'session')}${tail}\n`);
  if (unreadable > 0) ctx.stderr.write(`acode: ${plural(unreadable, 'session')} could not be read and ${unreadable === 1 ? 'was' : 'were'} not pushed (above)\n`);
  return unreadable > 0 ? ExitCode.failure : ExitCode.ok;
}
