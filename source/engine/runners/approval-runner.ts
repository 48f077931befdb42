import { runApprovalStep } from '../approval-step.js';
import type { PatternStep } from '../pattern.js';
import type { StepRunner } from '../step-runner.js';

/** A person's answer: asked once, its answer journaled (approval-step.ts). */
export const runApproval: StepRunner<(PatternStep & { work: { kind: 'approval' } })['work']> = (step, host) =>
  runApprovalStep(step.id, step.work.approval, {
    ...host.options,
    title: host.title(step.id),
    progress: host.progress,
    context: () => host.pattern.context(step.id, host.progress, host.options.variables),
    signal: host.signal,
    emit: (body) => host.emit(body),
    stepsTotal: () => host.stepsTotalNow(),
  });
