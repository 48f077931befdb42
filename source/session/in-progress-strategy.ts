import type { ResumeConfig } from '../config/resume-config.js';
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
