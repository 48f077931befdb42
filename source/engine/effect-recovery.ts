import type { EngineEventBody, PendingEffect } from './events.js';
import type { SessionProgress } from './session-progress.js';
import type { InProgressStrategy } from './write-recovery.js';

/** A call with effects outside the journal that the session stopped in: it may or may not have happened. */
export interface UncertainCall extends PendingEffect {
  call_id: string;
}

/** Every call journaled as starting whose result never was: python_exec runs, requests that change a server. */
export function uncertainCalls(progress: SessionProgress): UncertainCall[] {
  return Object.entries(progress.pending_effects).map(([call_id, effect]) => ({ call_id, ...effect }));
}

/**
 * What the strategy does with an uncertain call, as it does with a torn write: `retry` runs it
 * again; `rollback` — nothing to restore outside the working directory — takes it as not done: it
 * is not run again, and the model is told it was cut off, so it can decide.
 */
export function effectOutcome(strategy: Exclude<InProgressStrategy, 'prompt'>): 'run_again' | 'not_done' {
  return strategy === 'retry' ? 'run_again' : 'not_done';
}

/** What resume will do with an uncertain call, in words (plan and dry-run). */
export function describeEffectRecovery(outcome: 'run_again' | 'not_done'): string {
  const uncertain = 'cut off when the session stopped; it may or may not have happened';
  return outcome === 'run_again' ? `${uncertain}: run again (--strategy retry)` : `${uncertain}: taken as not done, not run again; the model is told (--strategy retry runs it again)`;
}

/** The answer the model gets for a call taken as not done: what is known, and that nothing was run again. */
export function notDoneOutput(call: UncertainCall): string {
  return `error: this ${call.name} call (${call.what}) was cut off when the session stopped: it may or may not have happened, and acode did not run it again. Check its effect before calling it again.`;
}

/** The events that settle the uncertain calls before their step's round is finished. */
export function settleUncertainCalls(calls: readonly UncertainCall[], outcome: 'run_again' | 'not_done'): EngineEventBody[] {
  return calls.map((call) => ({
    type: 'tool_effect_recovered',
    step: call.step,
    call_id: call.call_id,
    name: call.name,
    outcome,
    ...(outcome === 'not_done' ? { output: notDoneOutput(call) } : {}),
  }));
}
