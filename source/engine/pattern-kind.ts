import type { PatternSpec, WorkflowSpec } from '../spec/schema.js';
import type { Pattern, ShapeNode } from './pattern.js';

/** How views word a pattern's lanes and shape: "branch web", "3 tasks in 2 levels". */
export interface PatternWords {
  /** What one lane (a ShapeNode's group) is called, and several: ['branch', 'branches']. */
  lane: readonly [one: string, many: string];
  /** A lane's heading from its group: "branch web", "level 2". */
  laneLabel(group: string): string;
  /** The shape in a few words: "3 steps", "4 tasks in 3 levels", "5 steps in 2 branches, then reduce". */
  shapeWords(steps: readonly Pick<ShapeNode, 'group'>[]): string;
  /**
   * What a message calls a step before its name: `task` where the name is the spec's own id (a
   * workflow's `task 2` is its task "2", never read as a position); `step` when absent.
   */
  stepWord?: string;
  /** The browser's one-line step list draws a glyph per step, lane by lane (many short steps), rather than each step's name. */
  glyphsByLane?: boolean;
}

/**
 * The engine's side of one pattern type: its plug-in, what a stored spec must hold for it (read
 * without the validator: the browser draws its first frame without loading zod), and how views
 * word it. engine/patterns/pattern-for.ts keys these by type.
 */
export interface EngineKind<P extends PatternSpec> {
  /** The plug-in for a spec's pattern; `spec` for what it reads beside its config (an agent's prompt, the workflow's name). */
  plugin(config: P['config'], spec: Pick<WorkflowSpec, 'name' | 'agents'>): Pattern;
  /** True when a stored spec's `pattern.config` holds what the plug-in reads, shaped as the schema made it. */
  hasShape(config: Record<string, unknown>): boolean;
  words: PatternWords;
  /**
   * Steps are named by their 1-based position and complete in that order (the chain): a checkpoint's
   * count says which are done, and `--from-step 2` means the second.
   */
  numbered: boolean;
  /**
   * Its ids end in a 0-based position after a slash (`web/0`, `technical/0`, `worker/0`), which a
   * person reads 1-based (`web/1`): see step-names.ts. An evaluator's `draft/2` counts iterations from
   * 1 already and leaves this off.
   */
  zeroBasedTail?: boolean;
}

/** A JSON object (not null, not a scalar): the structural checks of files read without a schema. */
export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
export const isString = (value: unknown): value is string => typeof value === 'string';
/** A chain, branch or reduce step: an agent's, or an approval (type: approval / hitl). */
export const isStepShape = (step: unknown) => isObject(step) && (isString(step.agent) || isString(step.type));
