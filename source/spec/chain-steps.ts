import type { ApprovalStep, ChainStep } from './schema.js';

export function isApprovalStep(step: ChainStep): step is ApprovalStep {
  return 'type' in step;
}

/** What a step is called in views, events and plans: its agent, or "approval". */
export function stepLabel(step: ChainStep | undefined): string {
  if (!step) return '';
  return isApprovalStep(step) ? 'approval' : step.agent;
}
