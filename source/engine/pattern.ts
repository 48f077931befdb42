import type { AgentCliStep, ApprovalStep, PatternType } from '../spec/schema.js';
import { isNumbered } from './patterns/pattern-for.js';
import type { SessionProgress } from './session-progress.js';
import type { StepId } from './step-id.js';
import { stepName } from './step-names.js';
import type { Variables } from './template-context.js';
import type { StopReason } from './events.js';

/** What one step does: ask an agent (its input a template), ask a person, or run an agent CLI headless. Each kind has its runner (engine/step-runners.ts). */
export type StepWork =
  | {
      kind: 'agent';
      agent: string;
      /** A template, rendered with the step's context. */
      input: string;
      vars?: Variables;
      /**
       * Text sent after the rendered input as it is (never rendered): what a pattern adds, such as the
       * answer format it needs, or a request built from data (the run's variables as JSON).
       */
      append?: string | ((variables: Variables) => string);
    }
  | { kind: 'approval'; approval: ApprovalStep }
  | { kind: 'agent_cli'; cli: AgentCliStep };

/** A step a pattern can run: its id, the label views show (agent name or "approval"), its work. */
export interface PatternStep {
  id: StepId;
  label: string;
  work: StepWork;
}

/**
 * One step as views and plans draw it. `group` is the lane it belongs to (a parallel branch, a DAG
 * level, an iteration), `after` the steps it waits for.
 */
export interface ShapeNode {
  id: StepId;
  label: string;
  /** How a person names it: "step 2", "task overview", "web_research step 1", "reduce". */
  title: string;
  group: string | null;
  after: StepId[];
  approval: boolean;
  /** What the pattern read of this step's answer, for views: "chose technical (not taken: faq)", "score 72 of 85", "→ finish". */
  detail?: string;
}

/**
 * A workflow pattern as a plug-in of the one step scheduler. Pure: it reads the spec and the
 * progress, never the disk, and answers the same for the same progress — so a resume (progress
 * replayed from the log) sees exactly the steps the interrupted run saw. Patterns that create steps
 * while they run (a route chosen, iteration n of a loop, a graph node visited again) derive them from
 * the recorded responses of completed steps: a model's choice is an event replayed, never asked again.
 */
export interface Pattern {
  readonly type: PatternType;
  /** Every step known now, in the order views list them; steps created at run time appear once known. */
  shape(progress: SessionProgress): ShapeNode[];
  /** The steps that can start now: not completed, everything they wait for completed, in shape order. */
  ready(progress: SessionProgress): PatternStep[];
  /** A step by id (also one not ready yet), or undefined when the pattern has no such step. */
  step(id: StepId, progress: SessionProgress): PatternStep | undefined;
  /** True once no step is left to run: the session's artifacts are written and it completes. */
  finished(progress: SessionProgress): boolean;
  /** What a step's templates (agent prompt, input, approval prompt) see. */
  context(id: StepId, progress: SessionProgress, variables: Variables): Record<string, unknown>;
  /** What artifact paths and contents see once the pattern has finished. */
  artifactContext(progress: SessionProgress, variables: Variables): Record<string, unknown>;
  /**
   * The completed steps a fork that runs `from` again may reuse: none of them depends on `from`.
   * Undefined when `from` is not a step of this pattern.
   */
  reusableBefore(from: StepId, progress: SessionProgress): StepId[] | undefined;
  /** The step a fork runs again by default: the first not completed, in shape order. */
  firstUnfinished(progress: SessionProgress): StepId | undefined;
  /**
   * Why the pattern cannot go on although it has not finished and no step is ready: a decision it
   * could not read after its retries, or one of its limits reached. Derived from progress like the
   * rest, so a resume stops at the same place until the spec (or the limit) changes.
   */
  halted?(progress: SessionProgress): PatternHalt | undefined;
  /** How a finished run ended, when the pattern has something to say of it (a best draft that was not accepted). */
  outcome?(progress: SessionProgress): string | undefined;
}

/** A pattern's own stop: `paused` ones can go on once the limit is raised; `failed` ones cannot. */
export interface PatternHalt {
  outcome: 'paused' | 'failed';
  reason: Extract<StopReason, 'pattern_limit' | 'unreadable_answer'>;
  message: string;
}

/** Steps in shape order that completed. */
export function completedInOrder(pattern: Pattern, progress: SessionProgress): StepId[] {
  return pattern.shape(progress).filter((node) => progress.completed[node.id]).map((node) => node.id);
}

/**
 * How lines name a step: "step 2/5 writer" in a chain (its name and how many there are), elsewhere its
 * name and agent, "overview (researcher)", "web/1 (scraper)" — the name the run view, `sessions show`
 * and every flag use (step-names.ts).
 */
export function stepNamer(pattern: Pattern, progress: SessionProgress): (id: StepId) => string {
  let shape = pattern.shape(progress);
  let nodes = new Map(shape.map((node, index) => [node.id, { node, index }]));
  return (id) => {
    // A step the pattern created since (a route's, a worker's, a graph visit): `progress` is the run's own, read again.
    if (!nodes.has(id)) {
      shape = pattern.shape(progress);
      nodes = new Map(shape.map((node, index) => [node.id, { node, index }]));
    }
    const known = nodes.get(id);
    if (!known) return stepName(pattern.type, id);
    if (isNumbered(pattern.type)) return `step ${known.index + 1}/${shape.length} ${known.node.label}`.trimEnd();
    return `${stepName(pattern.type, id)} (${known.node.label})`;
  };
}

