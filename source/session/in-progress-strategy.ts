import type { ResumeConfig } from '../config/resume-config.js';
import { effectOutcome, type UncertainCall } from '../engine/effect-recovery.js';
import type { EffectRecovery } from '../engine/events.js';
import type { InProgressStrategy, PendingWriteState } from '../engine/write-recovery.js';

/** What happens to a write torn when the session stopped: rolled back from its snapshot, or kept for the retry. */
export type SettledStrategy = Exclude<InProgressStrategy, 'prompt'>;

/**
 * The in-progress strategy of a resume: --strategy, else resume.in_progress_strategy (whose
 * default is rollback). The one resolution `--dry-run` and the resume itself both use.
 */
export function resolveInProgressStrategy(flag: InProgressStrategy | undefined, config: Pick<ResumeConfig, 'in_progress_strategy'>): InProgressStrategy {
  return flag ?? config.in_progress_strategy;
}

/**
 * `prompt` settled: a person asked about the torn writes (`ask`, given only when someone can
 * answer) decides — and may abort, by throwing; with no one to ask, or nothing torn, a torn write
 * is rolled back.
 */
export async function settleStrategy(strategy: InProgressStrategy, writes: readonly PendingWriteState[], ask?: (torn: PendingWriteState[]) => Promise<SettledStrategy>): Promise<SettledStrategy> {
  if (strategy !== 'prompt') return strategy;
  const torn = writes.filter((w) => w.state === 'torn');
  if (torn.length === 0 || !ask) return 'rollback';
  return ask(torn);
}

/**
 * What the calls cut off when the session stopped (python_exec, a request that changes a server)
 * get: `retry` runs them again, `rollback` takes them as not done; `prompt` asks a person (`ask`,
 * given only when someone can answer), and with no one to ask takes them as not done — never a
 * blind second run.
 */
export async function settleUncertain(strategy: InProgressStrategy, calls: readonly UncertainCall[], ask?: (calls: readonly UncertainCall[]) => Promise<EffectRecovery>): Promise<EffectRecovery> {
  if (strategy !== 'prompt') return effectOutcome(strategy);
  if (calls.length === 0 || !ask) return 'not_done';
  return ask(calls);
}
