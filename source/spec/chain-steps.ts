import type { ApprovalStep, ChainStep } from './schema.js';

/** A step, task or reduce that a person answers (`type: approval` / `hitl`) rather than a model. */
export function isApprovalStep<T extends object>(step: T): step is Extract<T, Pick<ApprovalStep, 'type'>> {
  return 'type' in step;
}

/** What a step is called in views, events and plans: its agent, or "approval". */
export function stepLabel(step: ChainStep | undefined): string {
  if (!step) return '';
  return isApprovalStep(step) ? 'approval' : step.agent;
}
