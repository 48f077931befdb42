import type { ApprovalStep } from '../spec/schema.js';
import { renderTemplate, TemplateError } from '../spec/template.js';
import type { ApprovalDesk, ApprovalRequest } from './approval.js';
import type { ApprovalDecision, EngineEventBody } from './events.js';
import { nextAttempt, type SessionProgress } from './session-progress.js';
import type { StepId } from './step-id.js';
import { StopRun } from './stop-run.js';

export interface ApprovalStepDeps {
  sessionId: string;
  /** How the pattern names the step in messages ("step 2", "task review"). */
  title: string;
  progress: SessionProgress;
  /** What the step's templates see (the pattern's context for it). */
  context: () => Record<string, unknown>;
  approvals?: ApprovalDesk;
  signal: AbortSignal;
  emit(body: EngineEventBody): void;
  /** The steps the pattern knows of now, when it grew (see SessionExecutor.stepsTotalNow). */
  stepsTotal?: () => { steps_total?: number };
}

/**
 * An approval step: the session waits in AWAITING_APPROVAL for a person's answer. Approved or
 * edited, the answer is the step's response; rejected, the session is cancelled. With nobody to
 * answer (no terminal, no --approve), the step stops here (other branches go on) and `acode resume`
 * asks again.
 */
export async function runApprovalStep(step: StepId, config: ApprovalStep, deps: ApprovalStepDeps): Promise<void> {
  const { sessionId, progress, emit, signal } = deps;
  const attempt = nextAttempt(progress, step);
  const key = `${sessionId}:${step}:${attempt}`;
  emit({ type: 'step_started', step, agent: 'approval', attempt, idempotency_key: key, ...deps.stepsTotal?.() });
  const started = performance.now();
  let request: ApprovalRequest;
  try {
    const context = deps.context();
    request = { step, prompt: renderTemplate(config.prompt, context).trim(), context: renderTemplate(config.context_display ?? '', context).trim(), defaultResponse: config.default ?? 'approved' };
  } catch (error) {
    if (error instanceof TemplateError) throw new StopRun('failed', 'template_error', `${deps.title} (approval): ${error.message}`);
    throw error;
  }
  // Answered before the process died: the answer stands, nobody is asked twice.
  const earlier = progress.answered[step];
  let answer: { decision: ApprovalDecision; response: string };
  if (earlier) answer = earlier;
  else {
    emit({ type: 'approval_requested', step, attempt, prompt: request.prompt, context: request.context, default_response: request.defaultResponse });
    const given = signal.aborted ? undefined : await deps.approvals?.answer(request, signal);
    if (!given) throw new StopRun('awaiting', 'user_exit', 'waiting for approval');
    answer = { decision: given.decision, response: given.decision === 'edited' ? given.response : given.decision === 'approved' ? request.defaultResponse : '' };
    emit({ type: 'approval_answered', step, attempt, decision: answer.decision, response: answer.response });
  }
  if (answer.decision === 'rejected') throw new StopRun('cancelled', 'approval_rejected', `${deps.title}: the approval was rejected; fork the session to try again`);
  emit({ type: 'step_completed', step, agent: 'approval', attempt, idempotency_key: key, response: answer.response, usage: { input: 0, output: 0 }, duration_ms: Math.round(performance.now() - started) });
}
