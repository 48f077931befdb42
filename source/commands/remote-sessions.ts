import stringWidth from 'string-width';
import { ExitCode } from '../errors/acode-error.js';
import { formatAgo, plural } from '../human-units.js';
import { printable } from '../printable-text.js';
import { sessionTitle } from '../session/session-name.js';
import { connectRemote } from '../store/remote/remote-client.js';
import { remoteSessionPages, type RemoteSessionRow } from '../store/remote/remote-sessions.js';
import { requireRemote } from '../store/remote/remote-url.js';
import { flushBudgetMs, flushHome, sessionsWithPending } from '../store/remote/flush-home.js';
import { requireCurrentSchema } from '../store/remote/schema-migrate.js';
import { openRepository, type CommandContext } from './command-context.js';

const header = ['ID', 'WORKFLOW', 'STATUS', 'STEPS', 'TOKENS', 'HOST', 'EVENTS', 'UPDATED'];

function cellsOf(r: RemoteSessionRow): string[] {
  return [r.session_id, printable(sessionTitle(r).replace(/[\t\n]/g, ' ')), r.status, `${r.steps_done}/${r.steps_total}`, String(r.tokens.input + r.tokens.output), printable(r.host), String(r.events), formatAgo(Date.parse(r.updated_at))];
}

/** A page of the table: its columns as wide as the first page made them (or as a longer cell needs). */
function tableLines(rows: readonly RemoteSessionRow[], widths: number[]): string {
  const cells = rows.map(cellsOf);
  for (const row of cells) row.forEach((cell, i) => (widths[i] = Math.max(widths[i]!, stringWidth(cell))));
  const line = (c: readonly string[]) => c.map((cell, i) => cell + ' '.repeat(Math.max(0, widths[i]! - stringWidth(cell)))).join('  ').trimEnd();
  return cells.map(line).join('\n');
}

/**
 * `acode sessions list --remote [--status S] [--limit N] [--json]`: the sessions the team store
 * holds, from every machine, newest first — written a page at a time as the store answers, so the
 * first rows show at once however many it holds. This home's pending events go first (its rows
 * are then as this machine knows them), for flushBudgetMs at most: a store too slow to take them
 * in that time is listed all the same, on a fresh connection, saying how many are still pending.
 */
export async function listRemoteSessionsCommand(ctx: CommandContext, flags: { status?: string; json: boolean; limit?: number }): Promise<ExitCode> {
  const repository = openRepository(ctx);
  const target = requireRemote(repository.home, ctx.cwd, ctx.env);
  const deadline = Date.now() + flushBudgetMs;
  let db = await connectRemote(target);
  try {
    await requireCurrentSchema(db, target.shown);
    const flushed = await flushHome(db, repository.home, target, sessionsWithPending(repository.home, target, await repository.list({ write: false })), deadline);
    if (flushed.outOfTime) {
      // The connection is busy with the push that ran out of time: the listing goes on another.
      db.abandon();
      ctx.stderr.write(`acode: the team store ${target.shown} did not take this home's pending events within ${flushBudgetMs / 1000} s; listing with ${plural(flushed.left, 'event')} of it still pending ('acode sync' pushes them)\n`);
      db = await connectRemote(target);
    }
    let count = 0;
    const widths = header.map((h) => h.length);
    for await (const page of remoteSessionPages(db, { status: flags.status, limit: flags.limit })) {
      if (flags.json) {
        const items = page.map((row) => JSON.stringify(row, null, 2).replace(/^/gm, '  ')).join(',\n');
        ctx.stdout.write(`${count === 0 ? '[\n' : ',\n'}${items}`);
      } else {
        if (count === 0) page.map(cellsOf).forEach((row) => row.forEach((cell, i) => (widths[i] = Math.max(widths[i]!, stringWidth(cell)))));
        const head = count === 0 ? `${header.map((h, i) => h + ' '.repeat(widths[i]! - h.length)).join('  ').trimEnd()}\n` : '';
        ctx.stdout.write(`${head}${tableLines(page, widths)}\n`);
      }
      count += page.length;
    }
    if (flags.json) ctx.stdout.write(count === 0 ? '[]\n' : '\n]\n');
    else if (count === 0) ctx.stderr.write(`no sessions${flags.status ? ` with status ${flags.status}` : ''} in the team store ${target.shown}; 'acode sync' pushes this machine's\n`);
    return ExitCode.ok;
  } finally {
    await db.close();
  }
}
