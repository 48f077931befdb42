import type { WorkflowSpec } from '../spec/schema.js';
import type { SessionProgress } from './session-progress.js';

/** Dollars as a budget message says them: to the cent, finer below a cent ($0.0042). */
function dollars(amount: number): string {
  return amount >= 1 ? `$${amount.toFixed(2)}` : `$${Number(amount.toPrecision(2))}`;
}

/** What the session has spent of each budget, counted over every run and resume (the replayed progress). */
function spentOf(progress: SessionProgress) {
  return {
    max_steps: { used: progress.steps_done, said: (n: number) => `${n} steps completed` },
    max_tokens: { used: progress.tokens.input + progress.tokens.output, said: (n: number) => `${n} tokens used` },
    max_duration_s: { used: Math.round(progress.active_ms / 1000), said: (n: number) => `${n} seconds spent in steps` },
    max_cost_usd: { used: progress.cost_usd, said: (n: number) => `${dollars(n)} spent on model calls` },
  };
}

/** The raised value a message suggests: twice the limit, whole for counts, to the cent for dollars. */
function raised(key: string, limit: number): number {
  return key === 'max_cost_usd' ? Math.ceil(limit * 200) / 100 : Math.ceil(limit * 2);
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
    const { used, said } = spent[key];
    if (used >= limit) return { kind: 'reached', message: `budget reached: ${said(used)} of runtime.budgets.${key} ${limit}; to go on, raise it: acode resume ${sessionId} --set runtime.budgets.${key}=${raised(key, limit)}` };
  }
  for (const key of Object.keys(spent) as (keyof typeof spent)[]) {
    const limit = budgets[key];
    if (limit === undefined || progress.budgets_warned.includes(key)) continue;
    const { used, said } = spent[key];
    if (used >= limit * budgets.warn_threshold) return { kind: 'warn', budget: key, used, limit, message: `${said(used)} of runtime.budgets.${key} ${limit} (warn_threshold ${budgets.warn_threshold})` };
  }
  return { kind: 'ok' };
}
