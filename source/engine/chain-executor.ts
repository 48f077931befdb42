import type { WorkflowSpec } from '../spec/schema.js';
import { renderTemplate, TemplateError } from '../spec/template.js';
import { abortableSleep, backoffMs } from './abortable-sleep.js';
import { ArtifactPathError, renderArtifacts } from './artifacts.js';
import { writeWithIntent } from './tools/write-ahead.js';
import { sha256, type BlobStore } from './blob-store.js';
import { agentTools, extraRoots } from './tools/agent-tools.js';
import { runTool } from './tools/tool-runner.js';
import type { EngineEvent, EngineEventBody, SessionStatus, StopReason, TokenUsage } from './events.js';
import type { Journal } from './journal.js';
import type { ChatMessage, CompletionResult, Provider } from './provider.js';
import { applyEvent, type SessionProgress } from './session-progress.js';
import { ContextExhaustedError, ProviderError, RateLimitError, StepAbortedError } from './stop-errors.js';
import { stepContext, type Variables } from './template-context.js';

export interface ChainRunOptions {
  sessionId: string;
  spec: WorkflowSpec;
  variables: Variables;
  provider: Provider;
  journal: Journal;
  /** Fresh for a new run; replayed from the event log for a resume. */
  progress: SessionProgress;
  cwd: string;
  /** Attempts per step before the session pauses (rate limits, retryable errors). */
  maxAttempts?: number;
  /** Where snapshots of files the session reads and writes go. */
  blobs: BlobStore;
}

/** The `--json` shape of DESIGN.md §1. */
export interface RunSummary {
  session_id: string;
  status: SessionStatus;
  steps_total: number;
  steps_executed: number;
  steps_skipped: number;
  tokens: TokenUsage;
  artifacts: string[];
}

export type EngineListener = (event: EngineEvent) => void;

/** Model calls per step attempt before the agent is stopped: no loop runs unbounded. */
const maxToolRounds = 25;

/** Tool arguments as logged: long strings (file contents) become their size and hash. */
function summarizeArgs(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(args).map(([key, value]) => (typeof value === 'string' && value.length > 200 ? [key, { bytes: Buffer.byteLength(value), sha256: sha256(value) }] : [key, value])),
  );
}

/** Ends a run early with a recorded outcome (paused or failed), not as a crash. */
class StopRun extends Error {
  constructor(
    readonly outcome: 'paused' | 'failed',
    readonly reason: StopReason,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Runs a chain from `progress.next_step` to the end: completed steps are skipped, each step's
 * attempt is journaled before it runs, and each result is journaled (checkpointed) before the next
 * step starts. Events out through `subscribe`, control in through `cancel`.
 */
export class ChainExecutor {
  private readonly listeners = new Set<EngineListener>();
  private readonly abort = new AbortController();
  private readonly progress: SessionProgress;
  private executed = 0;

  constructor(private readonly options: ChainRunOptions) {
    this.progress = options.progress;
  }

  subscribe(listener: EngineListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Asks the run to stop: the running step is abandoned and the session is paused (user_exit). */
  cancel(): void {
    this.abort.abort();
  }

  get cancelled(): boolean {
    return this.abort.signal.aborted;
  }

  /** Stamps, applies, journals and announces an event; also serves callers that log around a run. */
  emit(body: EngineEventBody): EngineEvent {
    // Never behind the previous event, even if the clock steps back: replay order stays run order.
    const now = new Date().toISOString();
    const last = this.progress.last_event_at;
    const event = { ...body, event_id: this.progress.last_event_id + 1, ts: last && last > now ? last : now } as EngineEvent;
    applyEvent(this.progress, event);
    this.options.journal.record(event, this.progress);
    for (const listener of this.listeners) listener(event);
    return event;
  }

  async run(): Promise<RunSummary> {
    const { spec } = this.options;
    const steps = spec.pattern.config.steps;
    const skipped = this.progress.next_step;
    this.emit({ type: 'session_started', workflow_name: spec.name, steps_total: steps.length, resumed: skipped > 0 || this.progress.last_event_id > 0, steps_skipped: skipped, next_step: skipped, tokens: { ...this.progress.tokens } });
    for (let step = 0; step < skipped; step++) this.emit({ type: 'step_skipped', step, agent: steps[step]?.agent ?? '' });

    try {
      for (let step = skipped; step < steps.length; step++) await this.runStep(step);
      this.finishArtifacts();
      this.emit({ type: 'session_completed', tokens: this.progress.tokens });
    } catch (error) {
      if (!(error instanceof StopRun)) throw error;
      const step = this.progress.in_progress?.step ?? null;
      if (error.outcome === 'paused') this.emit({ type: 'session_paused', reason: error.reason, message: error.message, step });
      else this.emit({ type: 'session_failed', reason: error.reason, message: error.message, step });
    }
    return {
      session_id: this.options.sessionId,
      status: this.progress.status,
      steps_total: steps.length,
      steps_executed: this.executed,
      steps_skipped: skipped,
      tokens: { ...this.progress.tokens },
      artifacts: [...this.progress.artifacts],
    };
  }

  private checkBudget(): void {
    const limit = this.options.spec.runtime.budgets?.max_tokens;
    const used = this.progress.tokens.input + this.progress.tokens.output;
    if (limit !== undefined && used >= limit) {
      throw new StopRun('failed', 'budget_exceeded', `token budget exhausted: ${used} of runtime.budgets.max_tokens ${limit} used; fork the session with a larger budget to continue`);
    }
  }

  private messagesFor(step: number): { messages: ChatMessage[]; context: Record<string, unknown> } {
    const { spec, variables } = this.options;
    const config = spec.pattern.config.steps[step]!;
    const context = stepContext(spec, variables, this.progress.results, step);
    try {
      const system = renderTemplate(spec.agents[config.agent]?.prompt ?? '', context);
      const user = renderTemplate(config.input, context);
      return { messages: [{ role: 'system', content: system }, { role: 'user', content: user }], context };
    } catch (error) {
      if (error instanceof TemplateError) throw new StopRun('failed', 'template_error', `step ${step} (${config.agent}): ${error.message}`);
      throw error;
    }
  }

  private async runStep(step: number): Promise<void> {
    const { sessionId } = this.options;
    const maxAttempts = this.options.maxAttempts ?? 5;
    const agent = this.options.spec.pattern.config.steps[step]!.agent;
    // Idempotent: a step whose result is recorded is never applied again.
    if (this.progress.results[step]) return;
    for (let tries = 1; ; tries++) {
      if (this.cancelled) throw new StopRun('paused', 'user_exit', 'stopped by the user');
      this.checkBudget();
      const { messages, context } = this.messagesFor(step);
      const attempt = (this.progress.in_progress?.step === step ? this.progress.in_progress.attempt : 0) + 1;
      this.emit({ type: 'step_started', step, agent, attempt, idempotency_key: `${sessionId}:${step}:${attempt}` });
      const started = performance.now();
      let result: CompletionResult;
      try {
        result = await this.agentLoop({ agent, step, attempt, messages, context });
      } catch (error) {
        const delay = this.classify(error, step, attempt, tries, maxAttempts);
        this.emit({ type: 'step_retry_scheduled', step, attempt, reason: delay.reason, message: delay.message, delay_ms: delay.ms });
        try {
          await abortableSleep(delay.ms, this.abort.signal);
        } catch {
          throw new StopRun('paused', 'user_exit', 'stopped by the user while waiting to retry');
        }
        continue;
      }
      this.emit({ type: 'step_completed', step, agent, attempt, idempotency_key: `${sessionId}:${step}:${attempt}`, response: result.text, usage: result.usage, duration_ms: Math.round(performance.now() - started) });
      this.executed++;
      return;
    }
  }

  /**
   * One attempt of a step: model → tool calls → results → model … until the model answers without
   * tools. Every call and result is an event; file writes go through the write-ahead journal.
   */
  private async agentLoop(request: { agent: string; step: number; attempt: number; messages: ChatMessage[]; context: Record<string, unknown> }): Promise<CompletionResult> {
    const { provider, spec, cwd, blobs } = this.options;
    const tools = agentTools(spec, request.agent);
    const messages = [...request.messages];
    const usage = { input: 0, output: 0 };
    for (let round = 1; ; round++) {
      if (round > maxToolRounds) throw new ProviderError(`the agent asked for tools ${maxToolRounds} times without answering; stopping this step`, false);
      // A response that arrives after Ctrl+C is kept: it is paid for and complete.
      const result = await provider.complete({ ...request, messages, tools: tools.length ? tools : undefined, signal: this.abort.signal });
      usage.input += result.usage.input;
      usage.output += result.usage.output;
      if (!result.tool_calls?.length) return { text: result.text, usage };
      messages.push({ role: 'assistant', content: result.text, tool_calls: result.tool_calls });
      for (const call of result.tool_calls) {
        if (this.cancelled) throw new StepAbortedError();
        this.emit({ type: 'tool_called', step: request.step, attempt: request.attempt, call_id: call.id, name: call.name, args: summarizeArgs(call.args) });
        const outcome = await runTool(call, {
          step: request.step,
          attempt: request.attempt,
          cwd,
          extraRoots: extraRoots(spec),
          blobs,
          emit: (body) => this.emit(body),
          crashAfterBytes: call.name === 'file_write' ? provider.writeCrashAfterBytes?.(request.step, request.attempt) : undefined,
        });
        this.emit({ type: 'tool_result', step: request.step, attempt: request.attempt, call_id: call.id, name: call.name, ok: outcome.ok, output: outcome.output.slice(0, 2000) });
        messages.push({ role: 'tool', tool_call_id: call.id, name: call.name, content: outcome.output });
      }
    }
  }

  /** Decides what a failed attempt means: wait and retry (returns the delay), pause, or fail. */
  private classify(error: unknown, step: number, attempt: number, tries: number, maxAttempts: number): { ms: number; reason: StopReason; message: string } {
    if (error instanceof StepAbortedError || this.cancelled) throw new StopRun('paused', 'user_exit', 'stopped by the user');
    const message = error instanceof Error ? error.message : String(error);
    const fail = (reason: StopReason, retryable: boolean, outcome: 'paused' | 'failed', text: string): never => {
      this.emit({ type: 'step_failed', step, attempt, reason, message, retryable });
      throw new StopRun(outcome, reason, text);
    };
    if (error instanceof ContextExhaustedError) {
      return fail('context_exhausted', true, 'paused', `step ${step}: the model's context window is exhausted (${message}); resume to retry the step`);
    }
    const retryable = error instanceof RateLimitError || (error instanceof ProviderError && error.retryable);
    const reason: StopReason = error instanceof RateLimitError ? 'rate_limit' : 'provider_error';
    if (!retryable) {
      if (error instanceof ProviderError) return fail(reason, false, 'failed', `step ${step}: ${message}`);
      throw error;
    }
    if (tries >= maxAttempts) {
      return fail(reason, true, 'paused', `step ${step}: gave up after ${tries} attempts (${message}); resume to try again`);
    }
    const ms = error instanceof RateLimitError && error.retryAfterMs !== undefined ? error.retryAfterMs : backoffMs(tries);
    return { ms, reason, message };
  }

  /** Artifacts go through the same write-ahead journal as file_write (step -1: after the chain). */
  private finishArtifacts(): void {
    const { spec, variables, cwd, blobs } = this.options;
    try {
      for (const [i, artifact] of renderArtifacts(spec, variables, this.progress.results, cwd).entries()) {
        writeWithIntent(artifact.path, artifact.content, `artifact_${i}`, { step: -1, attempt: 1, cwd, blobs, emit: (body) => this.emit(body) });
        this.emit({ type: 'artifact_written', path: artifact.path, bytes: artifact.content.length, sha256: sha256(artifact.content) });
      }
    } catch (error) {
      if (error instanceof TemplateError || error instanceof ArtifactPathError) throw new StopRun('failed', error instanceof TemplateError ? 'template_error' : 'artifact_error', `artifact: ${error.message}`);
      throw error;
    }
  }
}
