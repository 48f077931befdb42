import type { ChainPattern, ChainStep } from '../../spec/schema.js';
import { plural } from '../../human-units.js';
import { isStepShape, type EngineKind } from '../pattern-kind.js';
import { isAgentCliStep, isApprovalStep, stepLabel } from '../../spec/chain-steps.js';
import type { Pattern, PatternStep, ShapeNode } from '../pattern.js';
import type { SessionProgress, StepRecord } from '../session-progress.js';
import { chainIndex, chainStepId, stepTitle, type StepId } from '../step-id.js';
import type { Variables } from '../template-context.js';

/** A step's work as the scheduler runs it: an agent call, or a person's approval. */
export function stepWork(step: ChainStep, id: StepId): PatternStep {
  if (isApprovalStep(step)) return { id, label: 'approval', work: { kind: 'approval', approval: step } };
  if (isAgentCliStep(step)) return { id, label: step.cli, work: { kind: 'agent_cli', cli: step } };
  return { id, label: step.agent, work: { kind: 'agent', agent: step.agent, input: step.input, vars: step.vars } };
}

/** `steps[n]` as strands-cli's templates see a list of finished steps: index, agent, response, tokens. */
export function stepRecords(ids: readonly StepId[], progress: SessionProgress): ({ index: number } & Omit<StepRecord, 'id'>)[] {
  const records: ({ index: number } & Omit<StepRecord, 'id'>)[] = [];
  for (const [index, id] of ids.entries()) {
    const done = progress.completed[id];
    if (!done) break;
    records.push({ index, agent: done.agent, response: done.response, tokens_estimated: done.tokens_estimated });
  }
  return records;
}

/**
 * A sequence of steps run one after another. Step n's id is "n"; it sees `steps[0..n-1]` and
 * `last_response`. Its steps are fixed by the spec, so the shape never changes while it runs.
 */
export function chainPattern(steps: readonly ChainStep[]): Pattern {
  const ids = steps.map((_, index) => chainStepId(index));
  const shape: ShapeNode[] = steps.map((step, index) => ({
    id: ids[index]!, label: stepLabel(step), title: stepTitle(ids[index]!), group: null, after: index === 0 ? [] : [ids[index - 1]!], approval: isApprovalStep(step),
  }));
  const firstUnfinished = (progress: SessionProgress) => ids.find((id) => !progress.completed[id]);
  const step = (id: StepId) => {
    const index = chainIndex(id);
    const config = index === undefined ? undefined : steps[index];
    return config ? stepWork(config, id) : undefined;
  };
  return {
    type: 'chain',
    shape: () => shape,
    step,
    ready(progress) {
      const next = firstUnfinished(progress);
      return next === undefined ? [] : [step(next)!];
    },
    finished: (progress) => firstUnfinished(progress) === undefined,
    context(id, progress, variables) {
      const index = chainIndex(id) ?? 0;
      const records = stepRecords(ids.slice(0, index), progress);
      const config = steps[index];
      return { ...variables, steps: records, last_response: records.at(-1)?.response ?? '', ...(config && !isApprovalStep(config) ? config.vars : undefined) };
    },
    artifactContext(progress, variables) {
      const records = stepRecords(ids, progress);
      return { last_response: records.at(-1)?.response ?? '', TRACE: '', ...variables, steps: records };
    },
    reusableBefore(from, progress) {
      const index = chainIndex(from);
      if (index === undefined || index >= steps.length) return undefined;
      // Later steps read earlier ones: only an unbroken run of completed steps from the start is reusable.
      const reusable: StepId[] = [];
      for (const id of ids.slice(0, index)) {
        if (!progress.completed[id]) break;
        reusable.push(id);
      }
      return reusable;
    },
    firstUnfinished,
  };
}

export type { Variables };

export const chainKind: EngineKind<ChainPattern> = {
  plugin: (config) => chainPattern(config.steps),
  hasShape: (config) => Array.isArray(config.steps) && config.steps.every(isStepShape),
  words: { lane: ['group', 'groups'], laneLabel: (group) => group, shapeWords: (steps) => plural(steps.length, 'step') },
  numbered: true,
};
