import type { PatternSpec, PatternType, WorkflowSpec } from '../../spec/schema.js';
import type { Pattern } from '../pattern.js';
import { isObject, type EngineKind, type PatternWords } from '../pattern-kind.js';
import { chainKind } from './chain.js';
import { parallelKind } from './parallel.js';
import { routingKind } from './routing.js';
import { evaluatorOptimizerKind } from './evaluator-optimizer.js';
import { orchestratorWorkersKind } from './orchestrator-workers.js';
import { graphKind } from './graph.js';
import { workflowKind } from './workflow.js';

/**
 * Every pattern the engine runs, keyed by type (its spec side is spec/pattern-kinds.ts): a new
 * pattern is a module in this folder, one line here and one there.
 */
export const engineKinds: { [T in PatternType]: EngineKind<Extract<PatternSpec, { type: T }>> } = {
  chain: chainKind,
  workflow: workflowKind,
  parallel: parallelKind,
  routing: routingKind,
  evaluator_optimizer: evaluatorOptimizerKind,
  orchestrator_workers: orchestratorWorkersKind,
  graph: graphKind,
};

function kindOf(type: string): EngineKind<PatternSpec> | undefined {
  return Object.hasOwn(engineKinds, type) ? (engineKinds[type as PatternType] as unknown as EngineKind<PatternSpec>) : undefined;
}

/** The plug-in that runs a spec's pattern. */
export function patternFor(spec: Pick<WorkflowSpec, 'pattern' | 'name' | 'agents'>): Pattern {
  return kindOf(spec.pattern.type)!.plugin(spec.pattern.config, spec);
}

/** True when what the plug-ins read of a stored spec is there, shaped as the schema made it. */
export function hasPatternShape(spec: unknown): spec is WorkflowSpec {
  const pattern = isObject(spec) ? spec.pattern : undefined;
  const config = isObject(pattern) ? pattern.config : undefined;
  if (!isObject(pattern) || !isObject(config) || typeof pattern.type !== 'string') return false;
  return kindOf(pattern.type)?.hasShape(config) ?? false;
}

const plainWords: PatternWords = { lane: ['group', 'groups'], laneLabel: (group) => group, shapeWords: (steps) => `${steps.length} step${steps.length === 1 ? '' : 's'}` };

/** How views word a pattern, by its type as a session records it (one this build does not know: plainly). */
export function patternWords(type: string): PatternWords {
  return kindOf(type)?.words ?? plainWords;
}

/** Steps named by 1-based position, completing in order (see EngineKind.numbered). */
export function isNumbered(type: string): boolean {
  return kindOf(type)?.numbered ?? false;
}

/** Its ids end in a 0-based `/n` a person reads 1-based (see EngineKind.zeroBasedTail). */
export function hasZeroBasedTail(type: string): boolean {
  return kindOf(type)?.zeroBasedTail ?? false;
}
