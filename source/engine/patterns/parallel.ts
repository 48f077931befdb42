import type { ChainStep, ParallelPattern } from '../../spec/schema.js';
import { plural } from '../../human-units.js';
import { isObject, isStepShape, isString, type EngineKind } from '../pattern-kind.js';
import { isApprovalStep, stepLabel } from '../../spec/chain-steps.js';
import type { Pattern, ShapeNode } from '../pattern.js';
import type { SessionProgress } from '../session-progress.js';
import type { StepId } from '../step-id.js';
import { stepRecords, stepWork } from './chain.js';
import { joinedAnswers } from './joined-answers.js';

/** The reduce step's id: branch step ids always hold a `/`, so no branch can take it. */
export const reduceStep: StepId = 'reduce';

const branchStepId = (branch: string, index: number): StepId => `${branch}/${index}`;

/**
 * Branches run side by side (strands-cli's `parallel`), each a little chain: step n of branch b has
 * id `b/n` and sees its own branch's `steps[0..n-1]`, `last_response` and `hitl_response` (the latest
 * approval before it in the branch). An approval in one branch waits without holding up the others.
 * Once every branch is done, the optional `reduce` step sees `branches.<id>.response` / `.status`.
 */
export function parallelPattern(config: ParallelPattern['config']): Pattern {
  const branches = config.branches.map((branch) => ({ id: branch.id, steps: branch.steps, ids: branch.steps.map((_, index) => branchStepId(branch.id, index)) }));
  const reduce = config.reduce;
  const shape: ShapeNode[] = [
    ...branches.flatMap((branch) =>
      branch.steps.map((step, index) => ({
        id: branch.ids[index]!, label: stepLabel(step), title: `${branch.id} step ${index + 1}`, group: branch.id, after: index === 0 ? [] : [branch.ids[index - 1]!], approval: isApprovalStep(step),
      })),
    ),
    ...(reduce ? [{ id: reduceStep, label: stepLabel(reduce), title: 'reduce', group: null, after: branches.map((branch) => branch.ids.at(-1)!).filter(Boolean), approval: isApprovalStep(reduce) }] : []),
  ];
  const locate = (id: StepId): { branch: (typeof branches)[number]; index: number } | undefined => {
    const slash = id.lastIndexOf('/');
    const branch = branches.find((b) => b.id === id.slice(0, slash));
    const index = Number(id.slice(slash + 1));
    return branch && Number.isInteger(index) && branch.ids[index] === id ? { branch, index } : undefined;
  };
  const configOf = (id: StepId): ChainStep | undefined => {
    if (id === reduceStep) return reduce;
    const at = locate(id);
    return at ? at.branch.steps[at.index] : undefined;
  };
  const branchDone = (branch: (typeof branches)[number], progress: SessionProgress) => branch.ids.every((id) => progress.completed[id]);
  const branchResults = (progress: SessionProgress) =>
    Object.fromEntries(branches.filter((branch) => branchDone(branch, progress)).map((branch) => [branch.id, { response: branch.ids.length ? progress.completed[branch.ids.at(-1)!]!.response : '', status: 'success' }]));
  const allIds = shape.map((node) => node.id);
  return {
    type: 'parallel',
    shape: () => shape,
    step: (id) => {
      const config = configOf(id);
      return config ? stepWork(config, id) : undefined;
    },
    ready(progress) {
      const next = branches.flatMap((branch) => {
        const id = branch.ids.find((step) => !progress.completed[step]);
        return id === undefined ? [] : [stepWork(configOf(id)!, id)];
      });
      if (reduce && !progress.completed[reduceStep] && branches.every((branch) => branchDone(branch, progress))) next.push(stepWork(reduce, reduceStep));
      return next;
    },
    finished: (progress) => allIds.every((id) => progress.completed[id]),
    context(id, progress, variables) {
      const config = configOf(id);
      const vars = config && !isApprovalStep(config) ? config.vars : undefined;
      if (id === reduceStep) return { ...variables, branches: branchResults(progress), ...vars };
      const at = locate(id);
      if (!at) return { ...variables };
      const earlier = at.branch.ids.slice(0, at.index);
      const records = stepRecords(earlier, progress);
      const hitl = earlier.filter((step, i) => isApprovalStep(at.branch.steps[i]!) && progress.completed[step]).at(-1);
      return { ...variables, steps: records, last_response: records.at(-1)?.response ?? '', ...(hitl ? { hitl_response: progress.completed[hitl]!.response } : {}), ...vars };
    },
    artifactContext(progress, variables) {
      const results = branchResults(progress);
      // strands-cli: the reduce's answer, or every branch's, alphabetically, when there is no reduce.
      const joined = joinedAnswers(Object.keys(results).sort().map((id) => `Branch ${id}:\n${results[id]!.response}`), '\n\n---\n\n');
      return { ...variables, TRACE: '', branches: results, last_response: reduce ? (progress.completed[reduceStep]?.response ?? '') : joined };
    },
    reusableBefore(from, progress) {
      if (from === reduceStep) return reduce ? allIds.filter((id) => id !== reduceStep && progress.completed[id]) : undefined;
      const at = locate(from);
      if (!at) return undefined;
      // Other branches are independent; in its own branch, the steps before it. The reduce reads every branch.
      const later = new Set([...at.branch.ids.slice(at.index), reduceStep]);
      const reusable = allIds.filter((id) => !later.has(id) && progress.completed[id]);
      return reusable;
    },
    firstUnfinished: (progress) => allIds.find((id) => !progress.completed[id]),
  };
}

const isBranch = (branch: unknown) => isObject(branch) && isString(branch.id) && Array.isArray(branch.steps) && branch.steps.every(isStepShape);

export const parallelKind: EngineKind<ParallelPattern> = {
  plugin: parallelPattern,
  hasShape: (config) => Array.isArray(config.branches) && config.branches.every(isBranch) && (config.reduce === undefined || isStepShape(config.reduce)),
  words: {
    lane: ['branch', 'branches'],
    glyphsByLane: true,
    laneLabel: (group) => `branch ${group}`,
    shapeWords(steps) {
      const groups = new Set(steps.map((step) => step.group).filter((group) => group !== null));
      const reduce = steps.some((step) => step.group === null);
      return `${plural(steps.length, 'step')} in ${plural(groups.size, 'branch', 'branches')}${reduce ? ', then reduce' : ''}`;
    },
  },
  numbered: false,
  zeroBasedTail: true,
};
