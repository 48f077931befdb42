import { AcodeError, ExitCode } from '../errors/acode-error.js';
import type { ApprovalStep, ChainStep, WorkflowSpec } from './schema.js';

/** A step, task or reduce that a person answers (`type: approval` / `hitl`) rather than a model. */
export function isApprovalStep<T extends object>(step: T): step is Extract<T, Pick<ApprovalStep, 'type'>> {
  return 'type' in step;
}

/** What a step is called in views, events and plans: its agent, or "approval". */
export function stepLabel(step: ChainStep | undefined): string {
  if (!step) return '';
  return isApprovalStep(step) ? 'approval' : step.agent;
}

/** Pattern types this build can run; the others validate and are refused by run, resume and fork. */
export const runnablePatternTypes: readonly WorkflowSpec['pattern']['type'][] = ['chain'];

/**
 * The steps of a chain spec, for the chain engine. A spec of another pattern validates but does
 * not run in this build: asking for its steps is refused as an unsupported spec (exit 2).
 */
export function chainSteps(spec: WorkflowSpec): ChainStep[] {
  if (spec.pattern.type === 'chain') return spec.pattern.config.steps;
  throw new AcodeError(
    `spec '${spec.name}': the ${spec.pattern.type} pattern validates but does not run in this build (runs: ${runnablePatternTypes.join(', ')}); 'acode validate <spec.yaml>' checks it, and run support lands with the step-graph engine`,
    ExitCode.usage,
  );
}
