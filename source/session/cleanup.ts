import { listWithLiveness, type ListedSession } from './listing.js';
import type { SessionRepository } from './repository.js';
import type { SessionStatus } from '../engine/events.js';

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

/** Deletes the planned sessions, each checked again just before: one a process took up since is spared. */
export async function applyCleanup(repository: SessionRepository, plan: CleanupPlan, lockTimeoutMs: number): Promise<{ deleted: string[]; spared: string[] }> {
  const result = { deleted: [] as string[], spared: [] as string[] };
  for (const session of plan.doomed) {
    const lock = await repository.lockState(session.session_id, lockTimeoutMs);
    if (lock.kind === 'held') {
      result.spared.push(session.session_id);
      continue;
    }
    await repository.delete(session.session_id);
    result.deleted.push(session.session_id);
  }
  return result;
}
