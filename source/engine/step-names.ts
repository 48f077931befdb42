import { hasZeroBasedTail, isNumbered, patternWords } from './patterns/pattern-for.js';
import { chainIndex, chainStepId, type StepId } from './step-id.js';

/**
 * The one form a person sees and types for a step, in every view, every JSON output and every flag
 * (`--step`, `--from-step`, the browser's fork key): positions count from 1. A chain's step is its
 * number (`2`); a parallel branch's, a route's or a worker's ends in its place in the line (`web/1`,
 * `technical/2`, `worker/3`); every other id is shown as the log keeps it (a task id, `reduce`,
 * `router#2`, `draft/2`, `review@3`). The log keeps the stored id (0-based where positions are), so
 * old sessions read the same; only this module turns one into the other.
 */
export function stepName(pattern: string, id: StepId): string {
  if (isNumbered(pattern)) {
    const index = chainIndex(id);
    if (index !== undefined) return String(index + 1);
  }
  if (hasZeroBasedTail(pattern)) {
    const tail = /^(.+\/)(0|[1-9]\d*)$/.exec(id);
    if (tail) return `${tail[1]}${Number(tail[2]) + 1}`;
  }
  return id;
}

/**
 * How a message names a step: `step 2`, `step web/1`, `step worker/3`, `task overview` — the name
 * a person can paste into `--step` or `--from-step` (the patterns' titles, "web step 1", "worker 1
 * of round 2", named nothing a flag takes). A workflow says `task`: its names are the spec's task
 * ids, and `task 2` is not read as the second step.
 */
export function stepCalled(pattern: string, id: StepId): string {
  return `${patternWords(pattern).stepWord ?? 'step'} ${stepName(pattern, id)}`;
}

/** The stored id a step's name means in a pattern (the inverse of stepName), before checking the step exists. */
export function stepIdOfName(pattern: string, name: string): StepId {
  if (isNumbered(pattern) && /^\d+$/.test(name)) return /^[1-9]\d*$/.test(name) ? chainStepId(Number(name) - 1) : '';
  if (hasZeroBasedTail(pattern)) {
    const tail = /^(.+\/)([1-9]\d*)$/.exec(name);
    if (tail) return `${tail[1]}${Number(tail[2]) - 1}`;
    // `web/0` names no step: positions start at 1 (a stored id given as it is is refused, not taken for another step).
    if (/\/0$/.test(name)) return '';
  }
  return name;
}

/** The step a name means among a session's steps, or undefined when it names none. */
export function stepNamed(pattern: string, steps: readonly { id: StepId }[], name: string): StepId | undefined {
  const id = stepIdOfName(pattern, name);
  return steps.some((step) => step.id === id) ? id : undefined;
}

/** The names a session's steps can be given by, for an error that says which are valid: "1-12", or the names. */
export function stepNamesText(pattern: string, steps: readonly { id: StepId }[]): string {
  if (isNumbered(pattern)) return steps.length ? `1-${steps.length}` : 'none';
  return steps.map((step) => stepName(pattern, step.id)).join(', ') || 'none';
}
