import { z } from '../../validation/z.js';
import { plural } from '../../human-units.js';
import { isAgentCliStep, isAgentStep, isApprovalStep, stepLabel } from '../chain-steps.js';
import { checkAgentCli, agentProblem, checkCliSessions, checkSteps, checkUniqueIds } from '../pattern-checks.js';
import { configPath, stepFields, type PatternOf, type SpecKind, type SpecPath } from '../pattern-kind.js';
import { chainStepSchema, identifier, listOf } from '../step-schemas.js';
import type { KeyedScope, TemplateScope } from '../template-scan.js';
import { concurrency } from '../max-parallel.js';
import { scope, stepVars, tasksElsewhere } from '../template-scopes.js';

/** Steps of one branch run in order, like a chain; branches run side by side. */
const branchSchema = z.strictObject({ id: identifier, steps: z.array(chainStepSchema) });

/** Branches (at least two, checked after parsing), then an optional `reduce` that sees every branch's result. */
export const parallelSchema = z.strictObject({
  type: z.literal('parallel'),
  config: z.strictObject({ branches: listOf(branchSchema, 'a parallel pattern needs its branches here: a list of branches (id, steps)'), reduce: chainStepSchema.optional() }),
});

export type ParallelBranch = z.infer<typeof branchSchema>;
type ParallelPattern = PatternOf<'parallel'>;

function branchStepScope(pattern: ParallelPattern, variables: readonly string[], branchIndex: number, step: number): TemplateScope {
  const branch = pattern.config.branches[branchIndex]!;
  const hitl = branch.steps.slice(0, step).some((s) => isApprovalStep(s));
  // 1-based, as the views name it; steps[n] is the template's own (0-based) index.
  const where = `branch '${branch.id}' step ${step + 1}`;
  const note = step === 0 ? `${where} is the branch's first step, so no step of it has run before` : `${where} runs after steps[0]${step > 1 ? `…steps[${step - 1}]` : ''} of its own branch only (a branch step sees the steps before it in its branch)`;
  const elsewhere = new Map([
    ['tasks', `${tasksElsewhere}; a branch step reads its branch's earlier steps as steps[n].response`],
    ['branches', `branches.<id> exists once every branch has finished, for the reduce step and the artifacts; a branch step sees only its own branch (steps[n], last_response)`],
    ['hitl_response', `hitl_response is the answer of an earlier type: hitl step of the same branch, and ${where} has none before it`],
  ]);
  return scope([...variables, 'steps', 'last_response', ...stepVars(branch.steps[step]), ...(hitl ? ['hitl_response'] : [])], { stepsAvailable: step, stepsNote: note, elsewhere });
}

function branchesKeyed(pattern: ParallelPattern): KeyedScope {
  const ids = new Set(pattern.config.branches.map((b) => b.id));
  return { noun: 'branch', known: ids, available: ids, unavailable: () => '' };
}

function reduceScope(pattern: ParallelPattern, variables: readonly string[]): TemplateScope {
  const reads = 'reduce reads each branch\'s result as branches.<id>.response';
  const elsewhere = new Map([
    ['steps', `steps[n] holds a chain's or one branch's steps; ${reads}`],
    ['last_response', `reduce has no last_response; ${reads}`],
    ['tasks', `${tasksElsewhere}; ${reads}`],
    ['hitl_response', `hitl_response is for the steps after a hitl step inside a branch; ${reads}`],
  ]);
  return scope([...variables, 'branches', ...stepVars(pattern.config.reduce)], { keyed: new Map([['branches', branchesKeyed(pattern)]]), elsewhere });
}

/**
 * - branch step: like a chain step within its own branch — `steps[n]` before it, `last_response`,
 *   its `vars` — plus `hitl_response` after a hitl step of the branch.
 * - reduce: variables, `branches.<id>.response`/`.status` of every branch, its `vars`.
 * - artifacts: `branches`; last_response is the reduce's response.
 */
export const parallelKind: SpecKind<ParallelPattern> = {
  names: ['steps', 'last_response', 'branches', 'hitl_response', 'TRACE'],
  check(spec, pattern, error) {
    const { branches, reduce } = pattern.config;
    const at: SpecPath = [...configPath, 'branches'];
    if (branches.length < 2) {
      error(at, `a parallel pattern needs at least 2 branches, as in strands-cli (this one has ${branches.length}); add a branch, or write a single sequence of steps as a chain`);
    }
    checkUniqueIds(branches.map((branch) => branch.id), (i) => [...at, i, 'id'], 'branch', error);
    for (const [i, branch] of branches.entries()) {
      if (branch.steps.length === 0) error([...at, i, 'steps'], `branch '${branch.id}' has no steps; give it at least one (an agent step, or a type: hitl step)`);
      checkSteps(spec, branch.steps, [...at, i, 'steps'], (j) => `branch '${branch.id}' step ${j + 1}`, error);
    }
    const cliSteps = branches.flatMap((branch, i) => branch.steps.flatMap((step, j) => (isAgentCliStep(step) ? [{ branch: i, cli: step.cli, session: step.session, who: `branch '${branch.id}' step ${j + 1}`, at: [...at, i, 'steps', j] }] : [])));
    checkCliSessions(cliSteps, (a, b) => cliSteps[a]!.branch !== cliSteps[b]!.branch, error);
    checkAgentCli(reduce, 'reduce', [...configPath, 'reduce'], error);
    if (reduce && isAgentStep(reduce)) {
      const problem = agentProblem(spec, reduce.agent, 'reduce');
      if (problem) error([...configPath, 'reduce', 'agent'], problem);
    }
  },
  *templateFields(pattern) {
    for (const [b, branch] of pattern.config.branches.entries()) {
      for (const [i, step] of branch.steps.entries()) yield* stepFields(step, [...configPath, 'branches', b, 'steps', i]);
    }
    if (pattern.config.reduce) yield* stepFields(pattern.config.reduce, [...configPath, 'reduce']);
  },
  fieldScopes: (_spec, pattern, path, variables) => (path[2] === 'reduce' ? [reduceScope(pattern, variables)] : [branchStepScope(pattern, variables, Number(path[3]), Number(path[5]))]),
  agentScopes(_spec, pattern, agent, variables) {
    const uses = (step: (typeof pattern.config.branches)[number]['steps'][number] | undefined) => step !== undefined && isAgentStep(step) && step.agent === agent;
    return [
      ...pattern.config.branches.flatMap((branch, b) => branch.steps.flatMap((step, i) => (uses(step) ? [branchStepScope(pattern, variables, b, i)] : []))),
      ...(uses(pattern.config.reduce) ? [reduceScope(pattern, variables)] : []),
    ];
  },
  artifactScope(_spec, pattern, variables) {
    const reads = 'parallel artifacts read branches.<id>.response (last_response is the reduce step\'s response, or every branch\'s joined when there is no reduce)';
    return scope([...variables, 'last_response', 'TRACE', 'branches'], {
      keyed: new Map([['branches', branchesKeyed(pattern)]]),
      elsewhere: new Map([['steps', `steps[n] holds one branch's steps and is gone once the branches finish; ${reads}`], ['tasks', `${tasksElsewhere}; ${reads}`]]),
    });
  },
  describe(spec, pattern) {
    const { branches, reduce } = pattern.config;
    const list = branches.map((branch) => `${branch.id} ${plural(branch.steps.length, 'step')}`).join(', ');
    const then = reduce ? `, then reduce (${isApprovalStep(reduce) ? 'hitl' : stepLabel(reduce)})` : ', no reduce';
    return `parallel, ${plural(branches.length, 'branch', 'branches')} (${list})${then}, ${concurrency(spec)}`;
  },
};
