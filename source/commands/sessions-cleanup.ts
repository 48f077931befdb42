import { loadResumeConfig, loadRetentionConfig } from '../config/resume-config.js';
import { ageHelp, parseAge } from '../config/retention-settings.js';
import type { SessionStatus } from '../engine/events.js';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { formatAgo } from '../human-units.js';
import { applyCleanup, planCleanup } from '../session/cleanup.js';
import type { ListedSession } from '../session/listing.js';
import { sessionTitle } from '../session/session-name.js';
import { sessionStatuses } from '../session/status-words.js';
import { openRepository, type CommandContext } from './command-context.js';
import { terminalText } from '../printable-text.js';

export interface CleanupFlags {
  /** `--older-than 30d`; default retention.older_than. */
  olderThan?: string;
  /** `--status completed,failed`; default retention.status. */
  status?: string;
  dryRun: boolean;
  yes: boolean;
  /** One object on stdout: `{dry_run, sessions: [{session_id, name, workflow_name, status, updated_at}], kept: [{session_id, why}]}` — the sessions deleted (or, dry, to delete). */
  json?: boolean;
}

/** A session in cleanup's --json. */
function shownRow(row: ListedSession) {
  return { session_id: row.session_id, name: row.name ?? null, workflow_name: row.workflow_name, status: row.status, updated_at: row.updated_at };
}

function statusList(text: string): SessionStatus[] {
  const statuses = text.split(',').map((s) => s.trim()).filter(Boolean);
  const bad = statuses.filter((s) => !(sessionStatuses as readonly string[]).includes(s));
  if (bad.length || !statuses.length) throw new AcodeError(`--status '${text}': ${bad.length ? `${bad.join(', ')} is not a session status` : 'names no status'}; use a comma-separated list of: ${sessionStatuses.join(', ')}`, ExitCode.usage);
  return statuses as SessionStatus[];
}

function listing(rows: readonly ListedSession[]): string {
  // A workflow's name is the spec's text: printed without its terminal controls, as list and show print it.
  return rows.map((r) => `  ${r.session_id}  ${terminalText(sessionTitle(r))}  ${r.status}  updated ${formatAgo(Date.parse(r.updated_at))}`).join('\n');
}

/**
 * `acode sessions cleanup [--older-than 30d] [--status …] [--dry-run] [--yes]`: deletes old sessions,
 * never silently — it lists them first and asks on a terminal; without one it needs --yes.
 */
export async function cleanupSessions(ctx: CommandContext, flags: CleanupFlags): Promise<ExitCode> {
  const repository = openRepository(ctx);
  const retention = loadRetentionConfig(repository.home, ctx.cwd);
  const age = flags.olderThan ?? retention.older_than;
  const olderThanMs = parseAge(age);
  if (olderThanMs === undefined) throw new AcodeError(`--older-than '${age}' is not an age: use ${ageHelp}`, ExitCode.usage);
  const statuses = flags.status === undefined ? retention.status : statusList(flags.status);
  const lockTimeoutMs = loadResumeConfig(repository.home, ctx.cwd).lock_timeout_seconds * 1000;
  const plan = await planCleanup(repository, { olderThanMs, statuses }, lockTimeoutMs);
  const rule = `${statuses.join(', ')}, last updated more than ${age} ago`;
  const kept = plan.spared.map(({ session, why }) => ({ session_id: session.session_id, why }));
  const report = (deleted: readonly ListedSession[], more: readonly { id: string; why: string }[] = []) => {
    if (flags.json) ctx.stdout.write(`${JSON.stringify({ dry_run: flags.dryRun, sessions: deleted.map(shownRow), kept: [...kept, ...more.map(({ id, why }) => ({ session_id: id, why }))] }, null, 2)}\n`);
  };
  for (const { session, why } of plan.spared) ctx.stderr.write(`keeping ${session.session_id}: ${terminalText(why)}\n`);
  if (plan.doomed.length === 0) {
    ctx.stderr.write(`no sessions to delete (${rule})\n`);
    report([]);
    return ExitCode.ok;
  }
  const count = `${plan.doomed.length} session${plan.doomed.length === 1 ? '' : 's'}`;
  // With --json, stdout is the object alone: the list a person confirms goes to stderr.
  (flags.json ? ctx.stderr : ctx.stdout).write(`${flags.dryRun ? 'would delete' : 'to delete'} ${count} (${rule}):\n${listing(plan.doomed)}\n`);
  if (flags.dryRun) {
    report(plan.doomed);
    return ExitCode.ok;
  }
  await repository.requireWritable('delete sessions');
  if (!flags.yes) {
    if (!ctx.interactive) throw new AcodeError(`refusing to delete ${count} without a terminal to confirm; add --yes (or see them with --dry-run)`, ExitCode.usage);
    if (!(await ctx.confirm(`Delete ${plan.doomed.length === 1 ? 'this session and its event log' : `these ${count} and their event logs`}? [y/N] `))) {
      ctx.stderr.write('kept them\n');
      report([], plan.doomed.map((session) => ({ id: session.session_id, why: 'kept at the question' })));
      return ExitCode.ok;
    }
  }
  const result = await applyCleanup(repository, plan, { olderThanMs, statuses }, lockTimeoutMs);
  for (const { id, why } of result.spared) ctx.stderr.write(`kept ${id}: ${why}\n`);
  ctx.stderr.write(`deleted ${result.deleted.length} session${result.deleted.length === 1 ? '' : 's'}\n`);
  report(plan.doomed.filter((session) => result.deleted.includes(session.session_id)), result.spared);
  return ExitCode.ok;
}
