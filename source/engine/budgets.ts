import type { WorkflowSpec } from '../spec/schema.js';
import type { SessionProgress } from './session-progress.js';

/** What the session has spent of each budget, counted over every run and resume (the replayed progress). */
function spentOf(progress: SessionProgress) {
  return {
    max_steps: { used: progress.steps_done, words: 'steps completed' },
    max_tokens: { used: progress.tokens.input + progress.tokens.output, words: 'tokens used' },
    max_duration_s: { used: Math.round(progress.active_ms / 1000), words: 'seconds spent in steps' },
  };
}

export type BudgetVerdict =
  | { kind: 'reached'; message: string }
  | { kind: 'warn'; budget: string; used: number; limit: number; message: string }
  | { kind: 'ok' };

/**
 * Where the session stands against `runtime.budgets` before its next model call: a budget reached
 * (the session pauses, resumable with it raised by `--set`), the first budget past its
 * warn_threshold not yet said (said once, in the log), or nothing to say.
 */
export function checkBudgets(budgets: NonNullable<WorkflowSpec['runtime']['budgets']> | undefined, progress: SessionProgress, sessionId: string): BudgetVerdict {
  if (!budgets) return { kind: 'ok' };
  const spent = spentOf(progress);
  for (const key of Object.keys(spent) as (keyof typeof spent)[]) {
    const limit = budgets[key];
    if (limit === undefined) continue;
    const { used, words } = spent[key];
    if (used >= limit) return { kind: 'reached', message: `budget reached: ${used} ${words} of runtime.budgets.${key} ${limit}; to go on, raise it: acode resume ${sessionId} --set runtime.budgets.${key}=${Math.ceil(limit * 2)}` };
  }
  for (const key of Object.keys(spent) as (keyof typeof spent)[]) {
    const limit = budgets[key];
    if (limit === undefined || progress.budgets_warned.includes(key)) continue;
    const { used, words } = spent[key];
    if (used >= limit * budgets.warn_threshold) return { kind: 'warn', budget: key, used, limit, message: `${used} ${words} of runtime.budgets.${key} ${limit} (warn_threshold ${budgets.warn_threshold})` };
  }
  return { kind: 'ok' };
}
