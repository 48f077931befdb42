import type { SessionStatus } from './events.js';
import type { Pattern } from './pattern.js';
import type { Checkpoint, SessionProgress } from './session-progress.js';
import { chainIndex, stepTitle, type StepId } from './step-id.js';
import { stepName } from './step-names.js';

export interface PlannedStep {
  step: StepId;
  /** Its name as every view shows it and every flag takes it: `3`, `web/2`, `overview` (step-names.ts). */
  name: string;
  /** How a person names it: "step 3", "task overview", "web step 2". */
  title: string;
  agent: string;
}

/** A step that was under way when the session stopped, and what the resume does with it. */
export type InProgressPlan = PlannedStep & { attempt: number; next_attempt: number; action: string };

/** What a resume will do, decided before anything runs (DESIGN.md §4 step 5). */
export interface ContinuationPlan {
  /** The pattern's type: a chain's steps are named by number, any other pattern's by id. */
  pattern: string;
  status: SessionStatus;
  last_checkpoint: { event_id: number; at: string | null };
  /** Events in the log; more than the checkpoint's when a step was under way. */
  log_events: number;
  steps_total: number;
  /** Completed earlier: skipped. */
  skip: PlannedStep[];
  /** Started but not finished when the session stopped (several when branches ran at once): evaluated, then retried. */
  in_progress: InProgressPlan[];
  /** Not started: queued, in order (in-progress steps are not repeated here). */
  remaining: PlannedStep[];
}

/**
 * Builds the plan from recovered progress and the stored checkpoint (which may trail the log).
 * Pure: it reads nothing and writes nothing.
 */
export function planContinuation(pattern: Pattern, progress: SessionProgress, checkpoint: Pick<Checkpoint, 'last_event_id' | 'last_event_at'>): ContinuationPlan {
  const shape = pattern.shape(progress);
  // By id, not by a scan of the shape per step: a plan of n steps costs O(n), not O(n²).
  const nodes = new Map(shape.map((node) => [node.id, node]));
  const planned = (id: StepId): PlannedStep => {
    const node = nodes.get(id);
    return { step: id, name: stepName(pattern.type, id), title: node?.title ?? stepTitle(id), agent: node?.label ?? pattern.step(id, progress)?.label ?? '' };
  };
  const running = Object.values(progress.in_progress).filter((step) => !progress.completed[step.step]);
  return {
    pattern: pattern.type,
    status: progress.status,
    last_checkpoint: { event_id: checkpoint.last_event_id, at: checkpoint.last_event_at },
    log_events: progress.last_event_id,
    steps_total: shape.length,
    skip: shape.filter((node) => progress.completed[node.id]).map((node) => planned(node.id)),
    in_progress: running.map((step) => ({
      ...planned(step.step),
      attempt: step.attempt,
      next_attempt: step.attempt + 1,
      // Model calls only read; file writes are checked against their hashes (write-recovery.ts).
      action: inProgressAction(pattern, progress, step.step, step.attempt),
    })),
    remaining: shape.filter((node) => !progress.completed[node.id] && !progress.in_progress[node.id]).map((node) => planned(node.id)),
  };
}

/** A planned step as a person reads it, by its name and agent: "3 writer", "web/2 researcher", "overview researcher". */
function plannedName(step: PlannedStep): string {
  return `${step.name} ${step.agent}`.trimEnd();
}

/** The plan as lines a person reads (dry-run, plain mode and the event log agree on it). */
export function describePlan(plan: ContinuationPlan): string[] {
  const chain = plan.pattern === 'chain';
  const range = (steps: PlannedStep[]) => {
    if (steps.length === 0) return 'none';
    if (steps.length <= 6) return steps.map((step) => plannedName(step)).join(', ');
    const first = chain ? chainIndex(steps[0]!.step) : undefined;
    const last = chain ? chainIndex(steps.at(-1)!.step) : undefined;
    if (first !== undefined && last !== undefined && last - first + 1 === steps.length) return `${first + 1}–${last + 1} (${steps.length} steps)`;
    return `${steps.slice(0, 5).map((step) => plannedName(step)).join(', ')} … (${steps.length} steps)`;
  };
  const running = plan.in_progress.map((step) => `${plannedName(step)}, attempt ${step.attempt} → ${step.action}`);
  return [
    `state:           ${plan.status} · last checkpoint at event ${plan.last_checkpoint.event_id} of ${plan.log_events}${plan.last_checkpoint.at ? ` (${plan.last_checkpoint.at})` : ''}`,
    `skip (done):     ${range(plan.skip)}`,
    `in progress:     ${running.length ? running.join('; ') : 'none'}`,
    `remaining:       ${range(plan.remaining)}`,
  ];
}

/** What a resume does with a step under way when the session stopped, as the plan says it. */
function inProgressAction(pattern: Pattern, progress: SessionProgress, id: StepId, attempt: number): string {
  const kind = pattern.step(id, progress)?.work.kind;
  if (kind === 'approval') return 'ask for the approval again';
  const cli = kind === 'agent_cli' ? progress.agent_cli[id] : undefined;
  if (cli) {
    const then = cli.session_id ? `continue its conversation ${cli.session_id}` : 'start it again';
    return `end ${cli.cli} (pid ${cli.pid}) if it still runs, then ${then} as attempt ${attempt + 1}`;
  }
  return `retry as attempt ${attempt + 1} (attempt ${attempt} left no result)`;
}
