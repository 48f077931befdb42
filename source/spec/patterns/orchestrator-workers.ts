import { z } from '../../validation/z.js';
import { isAgentStep } from '../chain-steps.js';
import { checkAgentCli, agentProblem } from '../pattern-checks.js';
import { configPath, stepFields, type PatternOf, type SpecKind, type SpecPath } from '../pattern-kind.js';
import { approvalStepSchema, chainStepSchema } from '../step-schemas.js';
import { scope, stepVars } from '../template-scopes.js';

/** The orchestrator plans subtasks, workers carry them out, reduce and writeup combine them. */
export const orchestratorWorkersSchema = z.strictObject({
  type: z.literal('orchestrator_workers'),
  config: z.strictObject({
    orchestrator: z.strictObject({
      agent: z.string(),
      limits: z.strictObject({
        /** Workers running at once (strands-cli: a concurrency bound, not a cap on the subtasks). */
        max_workers: z.number().int().min(1).optional(),
        /** Rounds of planning: after each, the orchestrator sees the results and may plan more. */
        max_rounds: z.number().int().min(1).max(20).optional(),
      }).optional(),
    }),
    worker_template: z.strictObject({ agent: z.string(), tools: z.array(z.string()).optional() }),
    decomposition_review: approvalStepSchema.optional(),
    reduce_review: approvalStepSchema.optional(),
    reduce: chainStepSchema.optional(),
    writeup: chainStepSchema.optional(),
  }),
});

type Pattern = PatternOf<'orchestrator_workers'>;

const workerNames = ['workers', 'num_workers', 'worker_count', 'round_count'];
const reviewNames = ['orchestrator_response', 'subtasks', 'task_count'];
const tails = ['reduce', 'writeup'] as const;

/**
 * - the orchestrator and each worker: no template of the spec (the orchestrator gets strands-cli's
 *   request with the variables as JSON, a worker its subtask's text).
 * - decomposition_review: `orchestrator_response` (the plan as JSON), `subtasks`, `task_count`.
 * - reduce_review, reduce: `workers[i].response` / `.task` / `.status`, `num_workers`, `round_count`,
 *   `hitl_response` after a review; writeup also `reduce_response`.
 * - artifacts: the same, `last_response` (writeup, else reduce, else every worker's answer).
 */
export const orchestratorWorkersKind: SpecKind<Pattern> = {
  names: [...workerNames, ...reviewNames, 'hitl_response', 'last_response', 'TRACE', 'reduce_response', 'writeup_response', 'execution_context'],
  check(spec, pattern, error, warn) {
    const at: SpecPath = [...configPath];
    const orchestrator = agentProblem(spec, pattern.config.orchestrator.agent, 'the orchestrator');
    if (orchestrator) error([...at, 'orchestrator', 'agent'], orchestrator);
    const worker = agentProblem(spec, pattern.config.worker_template.agent, 'worker_template');
    if (worker) error([...at, 'worker_template', 'agent'], worker);
    for (const name of tails) {
      const step = pattern.config[name];
      checkAgentCli(step, name, [...at, name], error);
      if (step && isAgentStep(step)) {
        const problem = agentProblem(spec, step.agent, name);
        if (problem) error([...at, name, 'agent'], problem);
      }
    }
    if (pattern.config.reduce_review && !pattern.config.reduce) warn([...at, 'reduce_review'], 'reduce_review asks before the reduce step, and there is none: it is never asked; add reduce or remove reduce_review');
    if (pattern.config.worker_template.tools) warn([...at, 'worker_template', 'tools'], 'worker_template.tools is not acted on yet: workers get the tools of their agent');
  },
  *templateFields(pattern) {
    for (const name of ['decomposition_review', 'reduce_review', ...tails] as const) {
      const step = pattern.config[name];
      if (step) yield* stepFields(step, [...configPath, name]);
    }
  },
  fieldScopes(_spec, pattern, path, variables) {
    const hitl = pattern.config.reduce_review || pattern.config.decomposition_review ? ['hitl_response'] : [];
    if (path[2] === 'decomposition_review') return [scope([...variables, ...reviewNames])];
    if (path[2] === 'reduce_review') return [scope([...variables, ...workerNames, ...hitl])];
    const step = path[2] === 'writeup' ? pattern.config.writeup : pattern.config.reduce;
    return [scope([...variables, 'last_response', ...workerNames, ...hitl, ...(path[2] === 'writeup' && pattern.config.reduce ? ['reduce_response'] : []), ...stepVars(step)])];
  },
  agentScopes(_spec, pattern, agent, variables) {
    const hitl = pattern.config.reduce_review || pattern.config.decomposition_review ? ['hitl_response'] : [];
    const uses = (name: (typeof tails)[number]) => {
      const step = pattern.config[name];
      return step && isAgentStep(step) && step.agent === agent;
    };
    return [
      ...(pattern.config.orchestrator.agent === agent || pattern.config.worker_template.agent === agent ? [scope(variables)] : []),
      ...(uses('reduce') ? [scope([...variables, 'last_response', ...workerNames, ...hitl])] : []),
      ...(uses('writeup') ? [scope([...variables, 'last_response', ...workerNames, ...hitl, ...(pattern.config.reduce ? ['reduce_response'] : [])])] : []),
    ];
  },
  artifactScope: (_spec, pattern, variables) =>
    scope([...variables, 'last_response', 'TRACE', 'execution_context', ...workerNames, ...(pattern.config.reduce ? ['reduce_response'] : []), ...(pattern.config.writeup ? ['writeup_response'] : []), ...(pattern.config.reduce_review || pattern.config.decomposition_review ? ['hitl_response'] : [])]),
  describe(_spec, pattern) {
    const { orchestrator, worker_template, reduce, writeup } = pattern.config;
    const limits = orchestrator.limits;
    const then = [reduce ? 'reduce' : '', writeup ? 'writeup' : ''].filter(Boolean).join(' and ');
    return `orchestrator_workers, ${orchestrator.agent} plans and ${worker_template.agent} workers carry it out (${limits?.max_workers ? `${limits.max_workers} at once` : 'all at once'}${limits?.max_rounds && limits.max_rounds > 1 ? `, up to ${limits.max_rounds} rounds` : ''})${then ? `, then ${then}` : ''}`;
  },
};
