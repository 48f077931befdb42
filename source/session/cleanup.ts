import { listWithLiveness, type ListedSession } from './listing.js';
import type { SessionRepository } from './repository.js';
import type { SessionStatus } from '../engine/events.js';
import type { SessionRecord } from '../store/session-record.js';

export interface CleanupRule {
  /** Sessions last updated longer ago than this, in ms. */
  olderThanMs: number;
  statuses: readonly SessionStatus[];
}

/** What a cleanup would delete, and what it leaves although the rule names it (with why). */
export interface CleanupPlan {
  doomed: ListedSession[];
  spared: { session: ListedSession; why: string }[];
}

/**
 * The sessions `rule` selects, oldest first. A session a live process runs is never among them
 * (whatever its status says), nor a damaged one: its row cannot be trusted to say how old it is.
 */
export async function planCleanup(repository: SessionRepository, rule: CleanupRule, lockTimeoutMs: number, now = Date.now()): Promise<CleanupPlan> {
  const cutoff = now - rule.olderThanMs;
  const selected = await listWithLiveness(repository, lockTimeoutMs, (row) => rule.statuses.includes(row.status) && Date.parse(row.updated_at) < cutoff);
  const plan: CleanupPlan = { doomed: [], spared: [] };
  for (const session of selected.reverse()) {
    const lock = await repository.lockState(session.session_id, lockTimeoutMs);
    if (lock.kind === 'held') plan.spared.push({ session, why: 'a live process runs it' });
    else if (session.damaged) plan.spared.push({ session, why: `damaged (${session.damaged}); delete it with acode sessions delete ${session.session_id}` });
    else plan.doomed.push(session);
  }
  return plan;
}

/**
 * Deletes the planned sessions, each under its lock and checked again against `rule` as its own
 * files say then (repository.deleteIfIdle): one a process took up since, or resumed to another
 * status or a later update while the person read the list, is spared — the list was a promise of
 * what matches the rule, not of what the sessions were.
 */
export async function applyCleanup(repository: SessionRepository, plan: CleanupPlan, rule: CleanupRule, lockTimeoutMs: number, now = Date.now()): Promise<{ deleted: string[]; spared: { id: string; why: string }[] }> {
  const result = { deleted: [] as string[], spared: [] as { id: string; why: string }[] };
  const cutoff = now - rule.olderThanMs;
  const matches = (record: SessionRecord) => rule.statuses.includes(record.checkpoint.status) && Date.parse(record.updated_at) < cutoff;
  for (const session of plan.doomed) {
    let outcome;
    try {
      outcome = await repository.deleteIfIdle(session.session_id, lockTimeoutMs, matches);
    } catch (error) {
      // One session acode may not delete (another user's, after a sudo acode) must not stop the rest
      // unreported: it is kept, saying why, and the others go on.
      const { code, path } = error as { code?: string; path?: string };
      if (code !== 'EACCES' && code !== 'EPERM' && code !== 'EBUSY' && code !== 'EROFS') throw error;
      result.spared.push({ id: session.session_id, why: `could not delete it: ${code}${path ? ` on ${path}` : ''}` });
      continue;
    }
    if (outcome === 'deleted') result.deleted.push(session.session_id);
    else if (outcome === 'running') result.spared.push({ id: session.session_id, why: 'a process took it up meanwhile' });
    else if (outcome === 'changed') result.spared.push({ id: session.session_id, why: 'it changed meanwhile (resumed?) and no longer matches' });
  }
  return result;
}
