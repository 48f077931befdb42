import type { WorkflowSpec } from '../spec/schema.js';
import type { SessionStatus } from './events.js';
import type { Checkpoint, SessionProgress } from './session-progress.js';
import { chainSteps, isApprovalStep, stepLabel } from '../spec/chain-steps.js';

export interface PlannedStep {
  step: number;
  agent: string;
}

/** What a resume will do, decided before anything runs (DESIGN.md §4 step 5). */
export interface ContinuationPlan {
  status: SessionStatus;
  last_checkpoint: { event_id: number; at: string | null };
  /** Events in the log; more than the checkpoint's when a step was under way. */
  log_events: number;
  steps_total: number;
  /** Completed earlier: skipped. */
  skip: PlannedStep[];
  /** Started but not finished when the session stopped: evaluated, then retried. */
  in_progress: (PlannedStep & { attempt: number; next_attempt: number; action: string }) | null;
  /** Not started: queued, in order (the in-progress step is not repeated here). */
  remaining: PlannedStep[];
}

/**
 * Builds the plan from recovered progress and the stored checkpoint (which may trail the log by
 * the events of one unfinished step). Pure: it reads nothing and writes nothing.
 */
export function planContinuation(spec: WorkflowSpec, progress: SessionProgress, checkpoint: Pick<Checkpoint, 'last_event_id' | 'last_event_at'>): ContinuationPlan {
  const steps = chainSteps(spec).map((s, step) => ({ step, agent: stepLabel(s) }));
  const running = progress.in_progress && progress.in_progress.step >= progress.next_step ? progress.in_progress : null;
  return {
    status: progress.status,
    last_checkpoint: { event_id: checkpoint.last_event_id, at: checkpoint.last_event_at },
    log_events: progress.last_event_id,
    steps_total: steps.length,
    skip: steps.filter((s) => progress.results[s.step] !== undefined),
    in_progress: running
      ? {
          ...steps[running.step]!,
          attempt: running.attempt,
          next_attempt: running.attempt + 1,
          // Chain steps only read (model calls); file writes are checked against their hashes (issue 4).
          action: isApprovalStep(chainSteps(spec)[running.step]!)
            ? 'ask for the approval again'
            : `retry as attempt ${running.attempt + 1} (attempt ${running.attempt} left no result)`,
        }
      : null,
    remaining: steps.filter((s) => progress.results[s.step] === undefined && s.step !== running?.step),
  };
}

/** The plan as lines a person reads (dry-run, plain mode and the event log agree on it). */
export function describePlan(plan: ContinuationPlan): string[] {
  const range = (steps: PlannedStep[]) => {
    if (steps.length === 0) return 'none';
    if (steps.length <= 6) return steps.map((s) => `${s.step + 1} ${s.agent}`).join(', ');
    return `${steps[0]!.step + 1}–${steps.at(-1)!.step + 1} (${steps.length} steps)`;
  };
  return [
    `state:           ${plan.status} · last checkpoint at event ${plan.last_checkpoint.event_id} of ${plan.log_events}${plan.last_checkpoint.at ? ` (${plan.last_checkpoint.at})` : ''}`,
    `skip (done):     ${range(plan.skip)}`,
    `in progress:     ${plan.in_progress ? `${plan.in_progress.step + 1} ${plan.in_progress.agent}, attempt ${plan.in_progress.attempt} → ${plan.in_progress.action}` : 'none'}`,
    `remaining:       ${range(plan.remaining)}`,
  ];
}
