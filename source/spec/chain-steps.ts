import type { AgentCliStep, ApprovalStep, ChainStep } from './schema.js';

/** A step, task or reduce that a person answers (`type: approval` / `hitl`) rather than a model. */
export function isApprovalStep<T extends object>(step: T): step is Extract<T, Pick<ApprovalStep, 'type'>> {
  return 'type' in step && (step.type === 'approval' || step.type === 'hitl');
}

/** A step an agent CLI runs headless (`type: agent_cli`). */
export function isAgentCliStep<T extends object>(step: T): step is Extract<T, Pick<AgentCliStep, 'type'>> {
  return 'type' in step && step.type === 'agent_cli';
}

/** A step one of the spec's agents answers (a model call acode makes itself). */
export function isAgentStep<T extends object>(step: T): step is Exclude<T, { type: unknown }> {
  return !('type' in step);
}

/** What a step is called in views, events and plans: its agent, "approval", or the CLI that runs it. */
export function stepLabel(step: ChainStep | undefined): string {
  if (!step) return '';
  if (isApprovalStep(step)) return 'approval';
  if (isAgentCliStep(step)) return step.cli;
  return step.agent;
}
