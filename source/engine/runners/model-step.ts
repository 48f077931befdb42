import { renderTemplate, TemplateError } from '../../spec/template.js';
import { agentLoop } from '../agent-loop.js';
import { conversationChars, loadConversation, saveConversation, seededConversation, summarize, type Summary } from '../conversation.js';
import type { StepPrompt } from '../events.js';
import type { PatternStep } from '../pattern.js';
import { stepInput, stepInputKey } from '../step-input-key.js';
import { renderStepPrompt } from '../step-prompt.js';
import type { ChatMessage, CompletionResult } from '../provider.js';
import { classifyStop, type Stop, type StepTries } from '../resume-strategy.js';
import { nextAttempt } from '../session-progress.js';
import type { StepId } from '../step-id.js';
import type { StepHost, StepRunner } from '../step-runner.js';
import { ownInputTooLong, StopRun } from '../stop-run.js';

type ModelStep = PatternStep & { work: { kind: 'agent' } };

/** The step's prompt: its agent's system prompt and its input, each rendered with the step's context. */
function messagesFor(step: ModelStep, host: StepHost): { messages: ChatMessage[]; context: Record<string, unknown>; prompt: StepPrompt } {
  const { spec, variables } = host.options;
  const context = host.pattern.context(step.id, host.progress, variables);
  // Which of the step's two templates failed, and where in it: a limit's message alone (range(…) would
  // make …) does not say whether to look at the agent's prompt or the step's input.
  const render = (source: string, field: string): string => {
    try {
      return renderTemplate(source, context);
    } catch (error) {
      if (error instanceof TemplateError) throw new StopRun('failed', 'template_error', `${host.title(step.id)} (${step.work.agent}): template ${field}, line ${error.line}: ${error.message}`);
      throw error;
    }
  };
  const prompt = renderStepPrompt(spec, step, variables, render);
  return { messages: [{ role: 'system', content: prompt.system }, { role: 'user', content: prompt.input }], context, prompt };
}

/**
 * A step one of the spec's agents answers: the model called through the agent loop (tools journaled
 * write-ahead), its conversation saved as it goes so a resume continues it, and a stop (rate limit,
 * context overflow, unknown failure) answered by the session's continuation policy.
 */
export const runModelStep: StepRunner<ModelStep['work']> = async (step, host) => {
  const { sessionId } = host.options;
  const id = step.id;
  const agent = step.work.agent;
  const tries: StepTries = { autoAttempts: 0 };
  // A resumed step continues its agent's saved conversation instead of starting blank.
  const saved = host.progress.conversations[id];
  let conversation = saved ? loadConversation(host.options.blobs, saved) : undefined;
  for (;;) {
    if (host.cancelled) throw new StopRun('paused', 'user_exit', 'stopped by the user');
    // Another step stopped the session: no new attempt starts (its stop, graver or equal, is the session's).
    if (host.sessionStop) throw new StopRun('paused', host.sessionStop.reason, `${host.title(id)}: not retried, the session stopped`);
    host.checkBudget();
    const { messages, context, prompt } = messagesFor(step, host);
    // The agent loop adds to `messages` as it goes: how long the step's own input is, before it does.
    const startLength = messages.length;
    // A step asked exactly as the source session asked it is that step again: its answer is taken, not paid for twice.
    const reuse = host.options.reusable?.get(id);
    if (reuse && !host.progress.in_progress[id] && reuse.key === stepInputKey(stepInput(host.options.spec, agent, prompt))) {
      host.emit({ type: 'step_reused', step: id, agent, response: reuse.response, from_session: reuse.from_session, input_unchanged: true, ...(reuse.cut ? { cut: true as const } : {}) });
      return 'reused';
    }
    const attempt = nextAttempt(host.progress, id);
    host.emit({ type: 'step_started', step: id, agent, attempt, idempotency_key: `${sessionId}:${id}:${attempt}`, ...(tries.lastRetry ? { retry: tries.lastRetry } : {}), ...host.stepsTotalNow(), prompt });
    // The model is never called before its step_started is on disk (group commit: one fdatasync for every step starting now).
    await host.options.journal.flush?.();
    const started = performance.now();
    const turn = { agent, step: id, attempt, messages: conversation ?? messages, context };
    let result: CompletionResult;
    try {
      result = await agentLoop(turn, { ...host.options, signal: host.signal, emit: (body) => host.emit(body), stillOwned: () => host.stillOwned(), recorded: (callId) => host.progress.tool_outcomes[id]?.[callId], notify: host.notify, beforeCall: () => host.checkBudget() });
    } catch (error) {
      const stop = classifyStop(error, host.cancelled);
      const next = await host.retryAfter(stop, tries, id, attempt);
      conversation = next === 'same_session' ? turn.messages : await freshConversation(host, stop, tries, { step: id, label: agent, attempt, start: messages, startLength, conversation: turn.messages, context });
      continue;
    }
    host.emit({ type: 'step_completed', step: id, agent, attempt, idempotency_key: `${sessionId}:${id}:${attempt}`, response: result.text, usage: result.usage, duration_ms: Math.round(performance.now() - started), ...(result.cut ? { cut: true as const } : {}) });
    if (tries.lastStop) host.recordAttempt({ step: id, tries, stop: tries.lastStop, strategy: 'none', outcome: { kind: 'success' } });
    return;
  }
};

/**
 * A conversation that outgrew the context continues in a fresh one seeded with a summary of it —
 * unless nothing past the step's own input could be summarized (then the input itself is too long).
 */
async function freshConversation(host: StepHost, stop: Stop, tries: StepTries, at: { step: StepId; label: string; attempt: number; start: ChatMessage[]; startLength: number; conversation: ChatMessage[]; context: Record<string, unknown> }): Promise<ChatMessage[]> {
  const { step, attempt } = at;
  const title = host.title(step);
  // Nothing past the step's own input to summarize: it is what does not fit. Paused before a
  // summary is asked for (and paid) that could not make the conversation smaller.
  if (at.conversation.length <= at.startLength) {
    host.emit({ type: 'step_failed', step, attempt, reason: stop.reason, message: stop.message, retryable: true });
    throw new StopRun('paused', stop.reason, ownInputTooLong(title, stop.message));
  }
  host.recordAttempt({ step, tries, stop, strategy: 'new_session', outcome: { kind: 'delayed', next_attempt_at: new Date().toISOString() } });
  let summary: Summary;
  // The spec's summary model writes this summary too, as strands-cli's summarization agent would.
  const model = host.options.spec.context_policy?.compaction?.summarization_model;
  try {
    summary = await summarize(host.options.provider, { agent: at.label, step, attempt, context: at.context, signal: host.signal, ...(model ? { model } : {}) }, at.conversation);
  } catch {
    throw new StopRun('paused', 'user_exit', 'stopped by the user while the conversation was summarized');
  }
  if (host.cancelled) throw new StopRun('paused', 'user_exit', 'stopped by the user while the conversation was summarized');
  const fresh = seededConversation(at.start, summary);
  // A fresh conversation no smaller than the one that overflowed cannot fit either: the step's own input is too long.
  if (conversationChars(fresh) >= conversationChars(at.conversation)) {
    host.emit({ type: 'step_failed', step, attempt, reason: stop.reason, message: stop.message, retryable: true });
    throw new StopRun('paused', stop.reason, ownInputTooLong(title, stop.message));
  }
  host.emit({ type: 'conversation_reset', step, attempt, blob: saveConversation(host.options.blobs, fresh), summary_source: summary.source, summary_chars: summary.text.length, dropped_messages: at.conversation.length, usage: summary.usage, ...(model ? { model } : {}) });
  return fresh;
}
