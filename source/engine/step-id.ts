/**
 * A step's identity, stable across resumes and forks: the chain index ("0", "1" …), a workflow task's
 * id, `branch/n` for step n of a parallel branch, `reduce` for a parallel reduce step. Patterns that
 * create steps while they run add what tells their instances apart (`route/…`, `iter-3/…`, `node@2`).
 * Progress, events and views are keyed by it, never by position.
 */
export type StepId = string;

/** The writes of a session's artifacts, after the last step (written as step -1 before ids). */
export const artifactsStep: StepId = '@artifacts';

export function chainStepId(index: number): StepId {
  return String(index);
}

/** The chain index of an id, or undefined when it is not a chain step's. */
export function chainIndex(id: StepId): number | undefined {
  return /^(0|[1-9]\d*)$/.test(id) ? Number(id) : undefined;
}

/**
 * How a person reads a step id in messages: "step 3" for a chain step (1-based, as everywhere in
 * the views), "task overview", "branch web step 2", "reduce step", "artifacts".
 */
export function stepTitle(id: StepId): string {
  if (id === artifactsStep) return 'artifacts';
  const index = chainIndex(id);
  if (index !== undefined) return `step ${index + 1}`;
  const branch = /^(.+)\/(0|[1-9]\d*)$/.exec(id);
  if (branch) return `branch ${branch[1]} step ${Number(branch[2]) + 1}`;
  if (id === 'reduce') return 'reduce step';
  return `task ${id}`;
}
