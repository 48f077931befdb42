import { mkdirSync } from 'node:fs';
import type { AgentStep, WorkflowSpec } from '../spec/schema.js';
import { renderTemplate, TemplateError } from '../spec/template.js';
import { isApprovalStep, stepLabel } from '../spec/chain-steps.js';
import { agentLoop } from './agent-loop.js';
import type { ApprovalDesk } from './approval.js';
import { runApprovalStep } from './approval-step.js';
import { StopRun } from './stop-run.js';
import { ArtifactPathError, renderArtifacts, sessionWrote, type ArtifactTarget } from './artifacts.js';
import { writeWithIntent } from './tools/write-ahead.js';
import { sha256, type BlobStore } from './blob-store.js';
import { conversationChars, loadConversation, saveConversation, seededConversation, summarize, type Summary } from './conversation.js';
import type { EngineEvent, EngineEventBody, SessionStatus, TokenUsage } from './events.js';
import type { Journal } from './journal.js';
import type { ChatMessage, CompletionResult, Provider } from './provider.js';
import { classifyStop, defaultAutoResume, selectStrategy, type AutoResumePolicy, type Stop } from './resume-strategy.js';
import { RetryWait } from './retry-wait.js';
import { applyEvent, nextAttempt, type SessionProgress } from './session-progress.js';
import { stepContext, type Variables } from './template-context.js';
import { redactEvent } from '../secrets/event-redaction.js';

export interface ChainRunOptions {
  sessionId: string;
  spec: WorkflowSpec;
  variables: Variables;
  provider: Provider;
  journal: Journal;
  /** Fresh for a new run; replayed from the event log for a resume. */
  progress: SessionProgress;
  cwd: string;
  /** How far the run continues on its own after a rate limit, a context overflow or an unknown failure. */
  autoResume?: AutoResumePolicy;
  /** Who answers approval steps; without one, the session waits in AWAITING_APPROVAL. */
  approvals?: ApprovalDesk;
  /** Where snapshots of files the session reads and writes go. */
  blobs: BlobStore;
  /** The session-lock epoch this process holds, stamped on every event (0 without a lock). */
  epoch?: number;
  /** Where artifacts go (`--out`, `--force`); absent: the working directory, overwriting (sessions from before --out). */
  artifacts?: ArtifactTarget;
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

/** A file-system refusal (permissions, read-only, full disk, a file where a folder should be). */
function isFsError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && ['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'ENOTDIR', 'EISDIR', 'ELOOP', 'EEXIST'].includes((error as NodeJS.ErrnoException).code ?? '');
}

export type EngineListener = (event: EngineEvent) => void;

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
  /** Automatic continuations in a row; a completed step resets it. */
  private autoAttempts = 0;
  /** The stop the latest automatic continuation answered. */
  private lastStop?: Stop;
  private wait?: RetryWait;
  /** The last event this run's state was built from, said once, by its first event (see epoch-fence.ts). */
  private basedOn?: number;
  /** False once another process took the session over: a file write checks it right before it happens. */
  private readonly stillOwned = (): boolean => this.options.journal.stillOwned?.() ?? true;

  constructor(private readonly options: ChainRunOptions) {
    this.progress = options.progress;
    this.basedOn = options.progress.last_event_id;
    options.journal.writesAs?.(options.epoch ?? 0, options.progress.last_event_id);
  }

  subscribe(listener: EngineListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Asks the run to stop: the running step is abandoned and the session is paused (user_exit). */
  cancel(): void {
    this.abort.abort();
  }

  /** During a wait before an automatic retry: retry now (`r` in the run view). */
  retryNow(): void {
    this.wait?.end('now');
  }

  /** During a wait before an automatic retry: give up and pause, resumable (`a` in the run view). */
  abandonRetry(): void {
    this.wait?.end('abandon');
  }

  get cancelled(): boolean {
    return this.abort.signal.aborted;
  }

  /**
   * Stamps, applies, journals and announces an event; also serves callers that log around a run.
   * The event is redacted first, so the progress, the journal and every listener (the run view, the
   * plain lines) hold the same text, with no secret in it — and a replay of the log reproduces it.
   */
  emit(body: EngineEventBody): EngineEvent {
    // Never behind the previous event, even if the clock steps back: replay order stays run order.
    const now = new Date().toISOString();
    const last = this.progress.last_event_at;
    const stamp = { event_id: this.progress.last_event_id + 1, ts: last && last > now ? last : now, epoch: this.options.epoch ?? 0 };
    const event = redactEvent({ ...body, ...stamp, ...(this.basedOn === undefined ? {} : { based_on: this.basedOn }) } as EngineEvent);
    applyEvent(this.progress, event);
    this.options.journal.record(event, this.progress);
    // Only once an event of this holder is in the log does it no longer need to say what it built on.
    this.basedOn = undefined;
    for (const listener of this.listeners) listener(event);
    return event;
  }

  async run(): Promise<RunSummary> {
    const { spec } = this.options;
    const steps = spec.pattern.config.steps;
    const skipped = this.progress.next_step;
    this.emit({ type: 'session_started', workflow_name: spec.name, steps_total: steps.length, resumed: skipped > 0 || this.progress.last_event_id > 0, steps_skipped: skipped, next_step: skipped, tokens: { ...this.progress.tokens } });
    for (let step = 0; step < skipped; step++) this.emit({ type: 'step_skipped', step, agent: stepLabel(steps[step]) });

    try {
      for (let step = skipped; step < steps.length; step++) await this.runStep(step);
      this.finishArtifacts();
      this.emit({ type: 'session_completed', tokens: this.progress.tokens });
    } catch (error) {
      if (!(error instanceof StopRun)) throw error;
      const step = this.progress.in_progress?.step ?? null;
      if (error.outcome === 'paused') this.emit({ type: 'session_paused', reason: error.reason, message: error.message, step });
      else if (error.outcome === 'failed') this.emit({ type: 'session_failed', reason: error.reason, message: error.message, step });
      else if (error.outcome === 'cancelled') this.emit({ type: 'session_cancelled', reason: error.reason, message: error.message, step });
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
    const config = spec.pattern.config.steps[step] as AgentStep;
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
    const config = this.options.spec.pattern.config.steps[step]!;
    // Idempotent: a step whose result is recorded is never applied again.
    if (this.progress.results[step]) return;
    if (isApprovalStep(config)) {
      await runApprovalStep(step, config, { ...this.options, progress: this.progress, signal: this.abort.signal, emit: (body) => this.emit(body) });
      this.executed++;
      return;
    }
    const agent = config.agent;
    // A resumed step continues its agent's saved conversation instead of starting blank.
    const saved = this.progress.conversation?.step === step ? this.progress.conversation.blob : undefined;
    let conversation = saved ? loadConversation(this.options.blobs, saved) : undefined;
    for (;;) {
      if (this.cancelled) throw new StopRun('paused', 'user_exit', 'stopped by the user');
      this.checkBudget();
      const { messages, context } = this.messagesFor(step);
      const attempt = nextAttempt(this.progress, step);
      this.emit({ type: 'step_started', step, agent, attempt, idempotency_key: `${sessionId}:${step}:${attempt}` });
      // The model is never called before its step_started is durable (with the previous step's step_completed: one fdatasync).
      await this.options.journal.flush?.();
      const started = performance.now();
      const turn = { agent, step, attempt, messages: conversation ?? messages, context };
      let result: CompletionResult;
      try {
        result = await agentLoop(turn, { ...this.options, signal: this.abort.signal, emit: (body) => this.emit(body), stillOwned: this.stillOwned, recorded: (callId) => this.progress.tool_outcomes[callId] });
      } catch (error) {
        conversation = await this.continuation(classifyStop(error, this.cancelled), { step, attempt, start: messages, conversation: turn.messages, context });
        continue;
      }
      this.emit({ type: 'step_completed', step, agent, attempt, idempotency_key: `${sessionId}:${step}:${attempt}`, response: result.text, usage: result.usage, duration_ms: Math.round(performance.now() - started) });
      this.executed++;
      if (this.lastStop) this.recordAttempt({ step, stop: this.lastStop, strategy: 'none', outcome: { kind: 'success' } });
      this.autoAttempts = 0;
      this.lastStop = undefined;
      return;
    }
  }

  private recordAttempt(a: { step: number; stop: Stop; strategy: 'same_session' | 'new_session' | 'none'; outcome: Extract<EngineEventBody, { type: 'resume_attempt' }>['outcome'] }): void {
    const policy = this.options.autoResume ?? defaultAutoResume;
    this.emit({
      type: 'resume_attempt', step: a.step, attempt: this.autoAttempts, max_attempts: policy.maxAttempts, stop_reason: a.stop.reason,
      retry_after_ms: a.stop.retryAfterMs ?? null, strategy: a.strategy, message: a.stop.message, outcome: a.outcome,
    });
  }

  /**
   * What a stopped attempt leads to: waits and returns the conversation to retry with (the same
   * one, or a fresh one seeded with a summary), or ends the run paused or failed.
   */
  private async continuation(stop: Stop, at: { step: number; attempt: number; start: ChatMessage[]; conversation: ChatMessage[]; context: Record<string, unknown> }): Promise<ChatMessage[] | undefined> {
    const { step, attempt } = at;
    const policy = this.options.autoResume ?? defaultAutoResume;
    const strategy = selectStrategy(stop, policy, this.autoAttempts + 1);
    if (strategy.kind === 'pause' || strategy.kind === 'fail') {
      if (stop.reason !== 'user_exit') {
        this.emit({ type: 'step_failed', step, attempt, reason: stop.reason, message: stop.message, retryable: strategy.kind === 'pause' });
        this.recordAttempt({ step, stop, strategy: 'none', outcome: strategy.kind === 'pause' ? { kind: 'skipped', why: strategy.why } : { kind: 'failure', retryable: false } });
      }
      throw new StopRun(strategy.kind === 'pause' ? 'paused' : 'failed', stop.reason, stop.reason === 'user_exit' ? strategy.why : `step ${step + 1}: ${strategy.why}`);
    }
    this.autoAttempts++;
    this.lastStop = stop;
    if (strategy.kind === 'new_session') {
      this.recordAttempt({ step, stop, strategy: 'new_session', outcome: { kind: 'delayed', next_attempt_at: new Date().toISOString() } });
      let summary: Summary;
      try {
        summary = await summarize(this.options.provider, { agent: stepLabel(this.options.spec.pattern.config.steps[step]), step, attempt, context: at.context, signal: this.abort.signal }, at.conversation);
      } catch {
        throw new StopRun('paused', 'user_exit', 'stopped by the user while the conversation was summarized');
      }
      if (this.cancelled) throw new StopRun('paused', 'user_exit', 'stopped by the user while the conversation was summarized');
      const fresh = seededConversation(at.start, summary);
      // A fresh conversation no smaller than the one that overflowed cannot fit either: the step's own input is too long.
      if (conversationChars(fresh) >= conversationChars(at.conversation)) {
        this.emit({ type: 'step_failed', step, attempt, reason: stop.reason, message: stop.message, retryable: true });
        throw new StopRun('paused', stop.reason, `step ${step + 1}: the step's own input does not fit the model's context (${stop.message}); shorten the input, or use a model with a larger context, then resume`);
      }
      this.emit({ type: 'conversation_reset', step, attempt, blob: saveConversation(this.options.blobs, fresh), summary_source: summary.source, summary_chars: summary.text.length, dropped_messages: at.conversation.length, usage: summary.usage });
      return fresh;
    }
    this.recordAttempt({ step, stop, strategy: 'same_session', outcome: { kind: 'delayed', next_attempt_at: new Date(Date.now() + strategy.delayMs).toISOString() } });
    this.wait = new RetryWait(strategy.delayMs, this.abort.signal);
    const ended = await this.wait.done;
    this.wait = undefined;
    if (ended === 'cancelled') throw new StopRun('paused', 'user_exit', 'stopped by the user while waiting to retry');
    if (ended === 'abandon') throw new StopRun('paused', stop.reason, `step ${step + 1}: ${stop.message}; the automatic retry was abandoned — resume when ready`);
    return at.conversation;
  }

  /** Artifacts go through the same write-ahead journal as file_write (step -1: after the chain). */
  private finishArtifacts(): void {
    const { spec, variables, cwd, blobs } = this.options;
    const target = this.options.artifacts ?? { dir: cwd, force: true };
    try {
      // The output folder is the artifacts' one root (it may lie outside the working directory, with
      // --out): a link swapped in below it cannot lead a write anywhere else, the user's files included.
      if (this.options.artifacts) mkdirSync(target.dir, { recursive: true });
      for (const [i, artifact] of renderArtifacts(spec, variables, this.progress.results, target, (path) => sessionWrote(this.progress, path)).entries()) {
        writeWithIntent(artifact.path, artifact.content, `artifact_${i}`, { step: -1, attempt: 1, cwd: target.dir, extraRoots: [], blobs, sessionId: this.options.sessionId, stillOwned: this.stillOwned, emit: (body) => this.emit(body) });
        this.emit({ type: 'artifact_written', path: artifact.path, bytes: artifact.content.length, sha256: sha256(artifact.content) });
      }
    } catch (error) {
      if (error instanceof TemplateError) throw new StopRun('failed', 'template_error', `artifact: ${error.message}`);
      if (error instanceof ArtifactPathError && error.brokenRule) {
        // Rendered from the session's own spec and responses: a resume would render it again.
        throw new StopRun('failed', 'artifact_error', `artifact: ${error.message}. No resume can change a path made from this session's spec and responses: fix outputs.artifacts and run the workflow again; the responses stay readable with 'acode sessions history ${this.options.sessionId}'`);
      }
      // Something on disk in the way: every step's work is kept, and a resume writes the artifacts once it is moved or the disk freed.
      if (error instanceof ArtifactPathError || isFsError(error)) throw new StopRun('paused', 'artifact_error', `artifact: ${error.message}; fix it, then resume`);
      throw error;
    }
  }
}
