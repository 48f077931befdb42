import stringWidth from 'string-width';
import { ExitCode } from '../errors/acode-error.js';
import { formatAgo, plural } from '../human-units.js';
import { printable } from '../printable-text.js';
import { sessionTitle } from '../session/session-name.js';
import { connectRemote } from '../store/remote/remote-client.js';
import { remoteSessionPages, type RemoteSessionRow } from '../store/remote/remote-sessions.js';
import { parseRemoteTarget, type RemoteTarget } from '../store/remote/remote-target.js';
import { mayHavePending } from '../store/remote/pending-check.js';
import { flushBudgetMs } from '../store/remote/flush-budget.js';
import { defaultHome } from '../store/acode-home.js';
import { defaultRemoteConfig } from '../config/remote-defaults.js';
import { configFiles, defaultLockTimeoutSeconds } from '../config/resume-defaults.js';
import { existsSync } from 'node:fs';
import { requireCurrentSchema } from '../store/remote/schema-migrate.js';
import type { CommandContext } from './command-context.js';
import { checkRemoteListing, checkStatus, parseLimit } from './list-flags.js';

const header = ['ID', 'WORKFLOW', 'STATUS', 'STEPS', 'TOKENS', 'HOST', 'EVENTS', 'UPDATED'];

function cellsOf(r: RemoteSessionRow): string[] {
  return [r.session_id, printable(sessionTitle(r).replace(/[\t\n]/g, ' ')), r.interrupted ? `${r.status} (interrupted)` : r.status, `${r.steps_done}/${r.steps_total}`, String(r.tokens.input + r.tokens.output), printable(r.host), String(r.events), formatAgo(Date.parse(r.updated_at))];
}

/** A page of the table: its columns as wide as the first page made them (or as a longer cell needs). */
function tableLines(rows: readonly RemoteSessionRow[], widths: number[]): string {
  const cells = rows.map(cellsOf);
  for (const row of cells) row.forEach((cell, i) => (widths[i] = Math.max(widths[i]!, stringWidth(cell))));
  const line = (c: readonly string[]) => c.map((cell, i) => cell + ' '.repeat(Math.max(0, widths[i]! - stringWidth(cell)))).join('  ').trimEnd();
  return cells.map(line).join('\n');
}

/**
 * The store a listing reads: without a config file (the usual case) straight from
 * ACODE_REMOTE_URL, loading none of the config's YAML and schema code; with one, as every command finds it.
 */
async function listingTarget(home: string, ctx: CommandContext): Promise<RemoteTarget> {
  const url = ctx.env[defaultRemoteConfig.url_env]?.trim();
  if (url && !configFiles(home, ctx.cwd).some((file) => existsSync(file))) return parseRemoteTarget(defaultRemoteConfig.url_env, url, defaultRemoteConfig.statement_timeout_seconds * 1000);
  const { requireRemote } = await import('../store/remote/remote-url.js');
  return requireRemote(home, ctx.cwd, ctx.env);
}

/** resume.lock_timeout_seconds, in ms: a lease silent that long is its holder's no more. The YAML config loader only when a config file exists. */
async function lockTimeoutMs(home: string, ctx: CommandContext): Promise<number> {
  if (!configFiles(home, ctx.cwd).some((file) => existsSync(file))) return defaultLockTimeoutSeconds * 1000;
  const { loadResumeConfig } = await import('../config/resume-config.js');
  return loadResumeConfig(home, ctx.cwd).lock_timeout_seconds * 1000;
}

/** `acode sessions list --remote` from its flags as given: checked here, so the dispatch loads this module alone for it (none of the local listing's). */
export async function listRemoteSessions(ctx: CommandContext, flags: { status?: string; resumable: boolean; limit?: string; json: boolean; here?: boolean }): Promise<ExitCode> {
  checkRemoteListing(flags);
  return listRemoteSessionsCommand(ctx, { status: checkStatus(flags.status), json: flags.json, limit: parseLimit(flags.limit) });
}

/**
 * `acode sessions list --remote [--status S] [--limit N] [--json]`: the sessions the team store
 * holds, from every machine, newest first — written a page at a time as the store answers, so the
 * first rows show at once however many it holds. This home's pending events go first (its rows
 * are then as this machine knows them), for flushBudgetMs at most: a store too slow to take them
 * in that time is listed all the same, on a fresh connection, saying how many are still pending.
 */
export async function listRemoteSessionsCommand(ctx: CommandContext, flags: { status?: string; json: boolean; limit?: number }): Promise<ExitCode> {
  const home = defaultHome(ctx.env);
  const target = await listingTarget(home, ctx);
  const timeoutMs = await lockTimeoutMs(home, ctx);
  const deadline = Date.now() + flushBudgetMs;
  let db = await connectRemote(target);
  try {
    await requireCurrentSchema(db, target.shown);
    // The home's sessions are read (and the code that reads them loaded) only when a log grew past its cursor.
    if (mayHavePending(home, target.shown)) {
      const [{ openRepository }, { flushHome, sessionsWithPending }] = await Promise.all([import('./command-context.js'), import('../store/remote/flush-home.js')]);
      const repository = openRepository(ctx);
      const flushed = await flushHome(db, home, target, sessionsWithPending(home, target, await repository.list({ write: false })), deadline);
      if (flushed.outOfTime) {
        // The connection is busy with the push that ran out of time: the listing goes on another.
        db.abandon();
        ctx.stderr.write(`acode: the team store ${target.shown} did not take this home's pending events within ${flushBudgetMs / 1000} s; listing with ${plural(flushed.left, 'event')} of it still pending ('acode sync' pushes them)\n`);
        db = await connectRemote(target);
      }
    }
    let count = 0;
    const widths = header.map((h) => h.length);
    for await (const page of remoteSessionPages(db, { status: flags.status, limit: flags.limit, lockTimeoutMs: timeoutMs })) {
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
