import stringWidth from 'string-width';
import { ExitCode } from '../errors/acode-error.js';
import { formatAgo } from '../human-units.js';
import { printable } from '../printable-text.js';
import { sessionTitle } from '../session/session-name.js';
import { defaultHome } from '../store/acode-home.js';
import { connectRemote } from '../store/remote/remote-client.js';
import { listRemoteSessions, type RemoteSessionRow } from '../store/remote/remote-sessions.js';
import { requireRemote } from '../store/remote/remote-url.js';
import { requireCurrentSchema } from '../store/remote/schema-migrate.js';
import type { CommandContext } from './command-context.js';

function table(rows: readonly RemoteSessionRow[]): string {
  const header = ['ID', 'WORKFLOW', 'STATUS', 'STEPS', 'TOKENS', 'HOST', 'EVENTS', 'UPDATED'];
  const cells = rows.map((r) => [r.session_id, printable(sessionTitle(r).replace(/[\t\n]/g, ' ')), r.status, `${r.steps_done}/${r.steps_total}`, String(r.tokens.input + r.tokens.output), printable(r.host), String(r.events), formatAgo(Date.parse(r.updated_at))]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => stringWidth(c[i]!))));
  const line = (c: readonly string[]) => c.map((cell, i) => cell + ' '.repeat(Math.max(0, widths[i]! - stringWidth(cell)))).join('  ').trimEnd();
  return [line(header), ...cells.map(line)].join('\n');
}

/** `acode sessions list --remote [--status S] [--json]`: the sessions the team store holds, from every machine, newest first. */
export async function listRemoteSessionsCommand(ctx: CommandContext, flags: { status?: string; json: boolean }): Promise<ExitCode> {
  const target = requireRemote(defaultHome(ctx.env), ctx.cwd, ctx.env);
  const db = await connectRemote(target);
  try {
    await requireCurrentSchema(db, target.shown);
    const rows = await listRemoteSessions(db, flags.status);
    if (flags.json) ctx.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    else if (rows.length === 0) ctx.stderr.write(`no sessions${flags.status ? ` with status ${flags.status}` : ''} in the team store ${target.shown}; 'acode sync' pushes this machine's\n`);
    else ctx.stdout.write(`${table(rows)}\n`);
    return ExitCode.ok;
  } finally {
    await db.close();
  }
}
