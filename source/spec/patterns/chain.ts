import { z } from '../../validation/z.js';
import { plural } from '../../human-units.js';
import { isAgentStep } from '../chain-steps.js';
import { checkSteps } from '../pattern-checks.js';
import { configPath, stepFields, type PatternOf, type SpecKind } from '../pattern-kind.js';
import { chainStepSchema, listOf } from '../step-schemas.js';
import { branchesElsewhere, chainStepScope, scope, tasksElsewhere } from '../template-scopes.js';

/** A sequence of steps run one after another; each sees the steps before it. */
export const chainSchema = z.strictObject({
  type: z.literal('chain'),
  config: z.strictObject({ steps: listOf(chainStepSchema, 'a chain needs its steps here: a list of agent steps (agent, input) and approvals (type: hitl, prompt)').min(1) }),
});

export const chainKind: SpecKind<PatternOf<'chain'>> = {
  names: ['steps', 'last_response', 'TRACE'],
  check(spec, pattern, error) {
    checkSteps(spec, pattern.config.steps, [...configPath, 'steps'], (i) => `step ${i + 1}`, error);
  },
  *templateFields(pattern) {
    for (const [i, step] of pattern.config.steps.entries()) yield* stepFields(step, [...configPath, 'steps', i]);
  },
  fieldScopes: (_spec, pattern, path, variables) => [chainStepScope(pattern.config.steps, variables, Number(path[3]))],
  agentScopes: (_spec, pattern, agent, variables) =>
    pattern.config.steps.flatMap((step, i) => (isAgentStep(step) && step.agent === agent ? [chainStepScope(pattern.config.steps, variables, i)] : [])),
  artifactScope(_spec, pattern, variables) {
    const n = pattern.config.steps.length;
    const note = `artifacts render after the chain's ${n} step${n === 1 ? '' : 's'}: steps[0]${n > 1 ? `…steps[${n - 1}]` : ''}`;
    return scope([...variables, 'last_response', 'TRACE', 'steps'], { stepsAvailable: n, stepsNote: note, elsewhere: new Map([['tasks', tasksElsewhere], ['branches', branchesElsewhere]]) });
  },
  describe: (_spec, pattern) => `chain, ${plural(pattern.config.steps.length, 'step')}`,
};
