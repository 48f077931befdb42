import { AcodeError, ExitCode } from '../errors/acode-error.js';
import type { SessionStatus } from '../engine/events.js';
import type { SessionSummary } from '../store/session-record.js';
import { openStore, paint, type CommandContext } from './command-context.js';

const statuses: readonly SessionStatus[] = ['created', 'running', 'awaiting_approval', 'paused', 'completed', 'failed', 'cancelled'];
const statusColor: Record<SessionStatus, number> = { created: 37, running: 36, awaiting_approval: 35, paused: 33, completed: 32, failed: 31, cancelled: 90 };

function relativeTime(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`;
  return `${Math.floor(seconds / 86_400)}d ago`;
}

function table(ctx: CommandContext, rows: SessionSummary[]): string {
  const header = ['ID', 'WORKFLOW', 'STATUS', 'STEPS', 'TOKENS', 'UPDATED'];
  const cells = rows.map((r) => [r.session_id, r.workflow_name, r.status, `${r.steps_done}/${r.steps_total}`, String(r.tokens.input + r.tokens.output), relativeTime(r.updated_at)]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[], status?: SessionStatus) =>
    c.map((cell, i) => (i === 2 && status ? paint(ctx, statusColor[status], cell.padEnd(widths[i]!)) : cell.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), ...cells.map((c, i) => line(c, rows[i]!.status))].join('\n');
}

/** `acode sessions list [--status S] [--json]`: newest first. */
export function listSessions(ctx: CommandContext, flags: { status?: string; json: boolean }): ExitCode {
  if (flags.status && !statuses.includes(flags.status as SessionStatus)) {
    throw new AcodeError(`--status '${flags.status}' is not a session status; use one of: ${statuses.join(', ')}`, ExitCode.usage);
  }
  const rows = openStore(ctx).list().filter((row) => !flags.status || row.status === flags.status);
  if (flags.json) ctx.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  else if (rows.length === 0) ctx.stderr.write(`no sessions${flags.status ? ` with status ${flags.status}` : ''}; start one with 'acode run <spec.yaml>'\n`);
  else ctx.stdout.write(`${table(ctx, rows)}\n`);
  return ExitCode.ok;
}

/** `acode sessions show <id> [--json]`. */
export function showSession(ctx: CommandContext, id: string, flags: { json: boolean }): ExitCode {
  const handle = openStore(ctx).open(id);
  const record = handle.record;
  if (flags.json) {
    ctx.stdout.write(`${JSON.stringify({ ...record, events: handle.events().length }, null, 2)}\n`);
    return ExitCode.ok;
  }
  const cp = record.checkpoint;
  const lines = [
    `session   ${record.session_id}`,
    `workflow  ${record.workflow_name} (${record.pattern_type})`,
    `status    ${paint(ctx, statusColor[cp.status], cp.status)}${cp.stop_reason ? ` (${cp.stop_reason})` : ''}`,
    `progress  ${cp.next_step}/${cp.steps_total} steps done${cp.in_progress ? `, step ${cp.in_progress.step + 1} in progress (attempt ${cp.in_progress.attempt})` : ''}`,
    `tokens    ${cp.tokens.input} in / ${cp.tokens.output} out`,
    `spec      ${record.spec_path}`,
    `cwd       ${record.cwd}`,
    `provider  ${record.runtime.provider}${record.runtime.model_id ? ` · ${record.runtime.model_id}` : ''}`,
    `created   ${record.created_at}`,
    `updated   ${record.updated_at} (${relativeTime(record.updated_at)})`,
    ...(Object.keys(record.variables).length ? [`variables ${Object.entries(record.variables).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(' ')}`] : []),
    ...(cp.error ? [`message   ${cp.error}`] : []),
    ...cp.artifacts.map((path) => `artifact  ${path}`),
  ];
  ctx.stdout.write(`${lines.join('\n')}\n`);
  return ExitCode.ok;
}

/** `acode sessions delete <id> [--force]`: asks on a terminal; refuses without --force otherwise. */
export async function deleteSession(ctx: CommandContext, id: string, flags: { force: boolean }): Promise<ExitCode> {
  const store = openStore(ctx);
  const sessionId = store.resolveId(id);
  if (!flags.force) {
    if (!ctx.interactive) throw new AcodeError(`refusing to delete session ${sessionId} without a terminal to confirm; add --force`, ExitCode.usage);
    if (!(await ctx.confirm(`Delete session ${sessionId} and its event log? [y/N] `))) {
      ctx.stderr.write('kept it\n');
      return ExitCode.ok;
    }
  }
  store.delete(sessionId);
  ctx.stderr.write(`deleted session ${sessionId}\n`);
  return ExitCode.ok;
}
