import type { PatternStep, StepWork } from './pattern.js';
import { runAgentCliStep } from './runners/agent-cli-step.js';
import { runApproval } from './runners/approval-runner.js';
import { runModelStep } from './runners/model-step.js';
import type { StepHost, StepRunner, StepRunners } from './step-runner.js';

/** Each kind of step work and what runs it: a model call, a person's approval, an agent CLI headless. */
export const stepRunners: StepRunners = {
  agent: runModelStep,
  approval: runApproval,
  agent_cli: runAgentCliStep,
};

/** Runs a step with its kind's runner. */
export function runStepWork(step: PatternStep, host: StepHost): Promise<void | 'reused'> {
  const runner = stepRunners[step.work.kind] as StepRunner<StepWork>;
  return runner(step, host);
}
