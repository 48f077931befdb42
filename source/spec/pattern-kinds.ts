import type { PatternSpec } from './schema.js';
import type { PatternOf, SpecKind } from './pattern-kind.js';
import { chainKind, chainSchema } from './patterns/chain.js';
import { parallelKind, parallelSchema } from './patterns/parallel.js';
import { routingKind, routingSchema } from './patterns/routing.js';
import { evaluatorOptimizerKind, evaluatorOptimizerSchema } from './patterns/evaluator-optimizer.js';
import { orchestratorWorkersKind, orchestratorWorkersSchema } from './patterns/orchestrator-workers.js';
import { graphKind, graphSchema } from './patterns/graph.js';
import { workflowKind, workflowSchema } from './patterns/workflow.js';

/**
 * The spec side of every pattern acode runs, keyed by type: a new pattern is a module in
 * spec/patterns/ (its schema and its SpecKind) added here, and one in engine/patterns/ (its
 * plug-in) added to engine/patterns/pattern-for.ts; the compiler names any place still missing it.
 */
export const patternSchemas = [chainSchema, workflowSchema, parallelSchema, routingSchema, evaluatorOptimizerSchema, orchestratorWorkersSchema, graphSchema] as const;

export const specKinds: { [T in PatternSpec['type']]: SpecKind<PatternOf<T>> } = {
  chain: chainKind,
  workflow: workflowKind,
  parallel: parallelKind,
  routing: routingKind,
  evaluator_optimizer: evaluatorOptimizerKind,
  orchestrator_workers: orchestratorWorkersKind,
  graph: graphKind,
};

/** The spec kind of a pattern, typed for that pattern. */
export function specKindOf<P extends PatternSpec>(pattern: P): SpecKind<P> {
  return specKinds[pattern.type] as unknown as SpecKind<P>;
}
