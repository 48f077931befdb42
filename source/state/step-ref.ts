import { chainStepId, type StepId } from '../engine/step-id.js';
import { isNumbered } from '../engine/patterns/pattern-for.js';

/** How a person names a step on the command line: a chain step by its number (1-based, as shown), any other by its id. */
export function stepRef(pattern: string, step: { id: StepId; index: number }): string {
  return isNumbered(pattern) ? String(step.index + 1) : step.id;
}

/** The step a name given on the command line means (as `fork --from-step` reads it), or undefined. */
export function resolveStepRef(pattern: string, steps: readonly { id: StepId; index: number }[], ref: string): StepId | undefined {
  const id = isNumbered(pattern) && /^\d+$/.test(ref) ? chainStepId(Number(ref) - 1) : ref;
  return steps.some((step) => step.id === id) ? id : undefined;
}

/** The names a step can be given by, for an error that says which are valid: "1-12", or the ids. */
export function stepRefsText(pattern: string, steps: readonly { id: StepId; index: number }[]): string {
  if (isNumbered(pattern)) return steps.length ? `1-${steps.length}` : 'none';
  return steps.map((step) => step.id).join(', ') || 'none';
}
