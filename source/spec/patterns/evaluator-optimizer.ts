import { z } from '../../validation/z.js';
import { plural } from '../../human-units.js';
import { agentProblem } from '../pattern-checks.js';
import { configPath, stepFields, type PatternOf, type SpecKind } from '../pattern-kind.js';
import { approvalStepSchema } from '../step-schemas.js';
import { scope } from '../template-scopes.js';

/** A producer drafts, an evaluator scores, the producer revises until the score is high enough. */
export const evaluatorOptimizerSchema = z.strictObject({
  type: z.literal('evaluator_optimizer'),
  config: z.strictObject({
    /** The agent that writes each draft (its own prompt is its first request, as in strands-cli). */
    producer: z.string(),
    evaluator: z.strictObject({ agent: z.string(), input: z.string().optional() }),
    accept: z.strictObject({ min_score: z.number().int().min(0).max(100), max_iters: z.number().int().min(1).max(100).default(3) }),
    revise_prompt: z.string().optional(),
    /** A person looks at each draft that fell short before it is revised; answering "stop" keeps it as the result. */
    review_gate: approvalStepSchema.optional(),
  }),
});

type Pattern = PatternOf<'evaluator_optimizer'>;

const evaluatorNames = ['draft', 'iteration'];
const reviseNames = ['draft', 'iteration', 'evaluation'];
const reviewNames = ['iteration_index', 'iterations', 'current_draft', 'current_evaluation', 'draft', 'evaluation', 'iteration'];

/**
 * - the producer's first draft: variables (its own prompt is the request); a revision
 *   (`revise_prompt`): `draft`, `iteration`, `evaluation.score` / `.issues` / `.fixes`, and
 *   `hitl_response` after a review.
 * - evaluator input: `draft`, `iteration`.
 * - review_gate: `iterations` (the history), `iteration_index`, `current_draft`, `current_evaluation`.
 * - artifacts: `last_response` (the result draft), `iterations` (a count), `history`, `final_score`,
 *   `min_score`, `max_iters`, `accepted`, `last_evaluation`.
 */
export const evaluatorOptimizerKind: SpecKind<Pattern> = {
  names: [...new Set([...reviseNames, ...reviewNames, 'hitl_response', 'last_response', 'TRACE', 'history', 'final_score', 'min_score', 'max_iters', 'accepted', 'last_evaluation', 'execution_context'])],
  check(spec, pattern, error) {
    const problem = agentProblem(spec, pattern.config.producer, 'the producer');
    if (problem) error([...configPath, 'producer'], problem);
    const evaluator = agentProblem(spec, pattern.config.evaluator.agent, 'the evaluator');
    if (evaluator) error([...configPath, 'evaluator', 'agent'], evaluator);
  },
  *templateFields(pattern) {
    if (pattern.config.evaluator.input !== undefined) yield [[...configPath, 'evaluator', 'input'], pattern.config.evaluator.input];
    if (pattern.config.revise_prompt !== undefined) yield [[...configPath, 'revise_prompt'], pattern.config.revise_prompt];
    if (pattern.config.review_gate) yield* stepFields(pattern.config.review_gate, [...configPath, 'review_gate']);
  },
  fieldScopes(_spec, pattern, path, variables) {
    const hitl = pattern.config.review_gate ? ['hitl_response'] : [];
    if (path[2] === 'evaluator') return [scope([...variables, ...evaluatorNames])];
    if (path[2] === 'revise_prompt') return [scope([...variables, ...reviseNames, ...hitl])];
    return [scope([...variables, ...reviewNames])];
  },
  agentScopes(_spec, pattern, agent, variables) {
    const hitl = pattern.config.review_gate ? ['hitl_response'] : [];
    return [
      // The producer's prompt renders for the first draft (variables only) and for each revision.
      ...(pattern.config.producer === agent ? [scope(variables), scope([...variables, ...reviseNames, ...hitl])] : []),
      ...(pattern.config.evaluator.agent === agent ? [scope([...variables, ...evaluatorNames])] : []),
    ];
  },
  artifactScope: (_spec, _pattern, variables) => scope([...variables, 'last_response', 'TRACE', 'iterations', 'history', 'final_score', 'min_score', 'max_iters', 'accepted', 'last_evaluation', 'execution_context']),
  describe(_spec, pattern) {
    const { producer, evaluator, accept, review_gate } = pattern.config;
    return `evaluator_optimizer, ${producer} drafts and ${evaluator.agent} scores until a score of ${accept.min_score} (at most ${plural(accept.max_iters, 'iteration')})${review_gate ? ', a person reviews each draft that falls short' : ''}`;
  },
};
