import { makeFolders } from './make-folders.js';
import type { RunSummary } from './run-summary.js';
import { checkBudgets } from './budgets.js';
import type { WorkflowSpec } from '../spec/schema.js';
import type { HttpExecutor } from './tools/http-executors.js';
import { renderTemplate, TemplateError } from '../spec/template.js';
import { agentLoop } from './agent-loop.js';
import type { ApprovalDesk } from './approval.js';
import { runApprovalStep } from './approval-step.js';
import { ownInputTooLong, StopRun, stopRank } from './stop-run.js';
import { ArtifactPathError, isFileSystemRefusal, renderArtifacts, sessionWrote, type ArtifactTarget } from './artifacts.js';
import { writeWithIntent } from './tools/write-ahead.js';
import { sha256, type BlobStore } from './blob-store.js';
import { conversationChars, loadConversation, saveConversation, seededConversation, summarize, type Summary } from './conversation.js';
import type { EngineEvent, EngineEventBody } from './events.js';
import type { Journal } from './journal.js';
import { completedInOrder, titleOf, type Pattern, type PatternStep } from './pattern.js';
import { patternFor } from './patterns/pattern-for.js';
import type { ChatMessage, CompletionResult, Provider } from './provider.js';
import { classifyStop, defaultAutoResume, selectStrategy, type AutoResumePolicy, type Stop, type StepTries } from './resume-strategy.js';
import { RetryWait } from './retry-wait.js';
import { applyEvent, nextAttempt, type SessionProgress } from './session-progress.js';
import { artifactsStep, type StepId } from './step-id.js';
import type { Variables } from './template-context.js';
import { maxParallel } from '../spec/max-parallel.js';
import { redactEvent } from '../secrets/event-redaction.js';
import type { NoticeListener, StepNotice } from './step-notice.js';

export interface SessionRunOptions {
  sessionId: string;
  spec: WorkflowSpec;
  variables: Variables;
  provider: Provider;
  journal: Journal;
  /** Fresh for a new run; replayed from the event log for a resume. */
  progress: SessionProgress;
  cwd: string;
  /** The spec's pattern as a plug-in; absent: the one the spec names. */
  pattern?: Pattern;
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
  /** The spec's HTTP executors, ready to send (session/ reads their headers' `${NAME}` from the environment). */
  executors?: ReadonlyMap<string, HttpExecutor>;
}

export type { RunSummary };

export type EngineListener = (event: EngineEvent) => void;

/**
 * Runs a session's steps, whatever its pattern: the pattern says which steps are ready, the
 * executor runs them — up to `runtime.max_parallel` at once — and journals every step's start
 * (durable before the model is called) and result. Completed steps are skipped, so a resume runs
 * only what is unfinished. A step that stops (paused, failed) ends the session once the steps
 * already running have finished and been journaled; an approval nobody can answer leaves its
 * step waiting while the others go on. Events out through `subscribe`, control in through `cancel`.
 */
export class SessionExecutor {
  private readonly listeners = new Set<EngineListener>();
  private readonly noticeListeners = new Set<NoticeListener>();
  private readonly abort = new AbortController();
  private readonly progress: SessionProgress;
  private readonly pattern: Pattern;
  private executed = 0;
  private readonly waits = new Set<RetryWait>();
  /** The gravest stop so far, and the step it came from: the session ends with it. */
  private stop?: { error: StopRun; step: StepId | null };
  /** Approval steps nobody here can answer: they wait for `acode resume`. */
  private readonly waiting = new Set<StepId>();
  /** The last event this run's state was built from, said once, by its first event (see epoch-fence.ts). */
  private basedOn?: number;
  /** False once another process took the session over: a file write checks it right before it happens. */
  private readonly stillOwned = (): boolean => this.options.journal.stillOwned?.() ?? true;

  constructor(private readonly options: SessionRunOptions) {
    this.progress = options.progress;
    this.pattern = options.pattern ?? patternFor(options.spec);
    this.basedOn = options.progress.last_event_id;
    options.journal.writesAs?.(options.epoch ?? 0, options.progress.last_event_id);
  }

  subscribe(listener: EngineListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Transient notices of running steps (their answers as they stream): never journaled, see StepNotice. */
  onNotice(listener: NoticeListener): () => void {
    this.noticeListeners.add(listener);
    return () => this.noticeListeners.delete(listener);
  }

  private readonly notify = (notice: StepNotice): void => {
    for (const listener of this.noticeListeners) listener(notice);
  };

  /** Asks the run to stop: running steps are abandoned and the session is paused (user_exit); one where only approvals were waiting stays awaiting_approval. */
  cancel(): void {
    this.abort.abort();
  }

  /** During waits before automatic retries: retry now (`r` in the run view). */
  retryNow(): void {
    for (const wait of this.waits) wait.end('now');
  }

  /** During waits before automatic retries: give up and pause, resumable (`a` in the run view). */
  abandonRetry(): void {
    for (const wait of this.waits) wait.end('abandon');
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
    const done = completedInOrder(this.pattern, this.progress);
    const skipped = done.length;
    this.emit({ type: 'session_started', workflow_name: spec.name, steps_total: this.pattern.shape(this.progress).length, resumed: skipped > 0 || this.progress.last_event_id > 0, steps_skipped: skipped, tokens: { ...this.progress.tokens } });
    for (const id of done) this.emit({ type: 'step_skipped', step: id, agent: this.progress.completed[id]!.agent, usage: { ...(this.progress.spent[id] ?? { input: 0, output: 0 }) } });

    await this.runReadySteps();
    try {
      if (this.stop) throw this.stop.error;
      // Stopped between steps: nothing was under way, so nothing stopped on its own. Stopped while only
      // questions were open (Ctrl+C at an approval): nothing ran, and the session keeps waiting for their
      // answers, as a run with nobody to ask leaves it.
      if (this.cancelled && this.waiting.size === 0 && !this.pattern.finished(this.progress)) throw new StopRun('paused', 'user_exit', 'stopped by the user');
      if (this.waiting.size === 0 && this.pattern.finished(this.progress)) {
        this.finishArtifacts();
        const note = this.pattern.outcome?.(this.progress);
        this.emit({ type: 'session_completed', tokens: this.progress.tokens, ...(note ? { note } : {}) });
      } else if (this.waiting.size === 0 && !this.cancelled) {
        const halt = this.pattern.halted?.(this.progress);
        if (halt) throw new StopRun(halt.outcome, halt.reason, halt.message);
      }
    } catch (error) {
      if (!(error instanceof StopRun)) throw error;
      const step = this.stop?.step ?? null;
      if (error.outcome === 'paused') this.emit({ type: 'session_paused', reason: error.reason, message: error.message, step });
      else if (error.outcome === 'failed') this.emit({ type: 'session_failed', reason: error.reason, message: error.message, step });
      else if (error.outcome === 'cancelled') this.emit({ type: 'session_cancelled', reason: error.reason, message: error.message, step });
    }
    return {
      session_id: this.options.sessionId,
      status: this.progress.status,
      steps_total: this.pattern.shape(this.progress).length,
      steps_executed: this.executed,
      steps_skipped: skipped,
      tokens: { ...this.progress.tokens },
      artifacts: [...this.progress.artifacts],
    };
  }

  /**
   * The scheduler: starts every ready step up to the limit, and again each time one finishes (its
   * result may make others ready), until nothing runs. After a stop nothing new starts; the steps
   * already running finish, so their work is journaled and kept.
   */
  private async runReadySteps(): Promise<void> {
    const limit = maxParallel(this.options.spec);
    const running = new Map<StepId, Promise<void>>();
    // Model calls at once are what the limit bounds: a question waiting for a person's answer holds no slot.
    const agents = new Set<StepId>();
    let failure: { error: unknown } | undefined;
    for (;;) {
      if (!this.stop && !failure && !this.cancelled) {
        for (const step of this.pattern.ready(this.progress)) {
          if (running.has(step.id) || this.waiting.has(step.id)) continue;
          if (step.work.kind === 'agent' && agents.size >= limit) continue;
          if (step.work.kind === 'agent') agents.add(step.id);
          const task = this.runStep(step)
            .catch((error: unknown) => {
              if (error instanceof StopRun) return this.stopped(error, step.id);
              // A bug or a lost lock: stop the others at once, then let it out.
              failure ??= { error };
              this.abort.abort();
            })
            .finally(() => {
              running.delete(step.id);
              agents.delete(step.id);
            });
          running.set(step.id, task);
        }
      }
      if (running.size === 0) break;
      await Promise.race(running.values());
    }
    if (failure) throw failure.error;
  }

  private stopped(error: StopRun, step: StepId): void {
    if (error.outcome === 'awaiting') {
      this.waiting.add(step);
      return;
    }
    if (!this.stop || stopRank[error.outcome] > stopRank[this.stop.error.outcome]) this.stop = { error, step };
    // The session ends with this stop: a step waiting to retry has nothing left to wait for.
    for (const wait of this.waits) wait.end('abandon');
  }

  /** The steps the pattern knows of now, when more than the session said: patterns that decide at run time grow. */
  stepsTotalNow(): { steps_total?: number } {
    const total = this.pattern.shape(this.progress).length;
    return total !== this.progress.steps_total ? { steps_total: total } : {};
  }

  /** How the pattern names a step in messages (only on the way to a stop: it walks the shape). */
  private title(id: StepId): string {
    return titleOf(this.pattern, this.progress, id);
  }

  /** Before each model call: a budget reached pauses the session; one past its warn_threshold is said once (engine/budgets.ts). */
  private checkBudget(): void {
    for (;;) {
      const verdict = checkBudgets(this.options.spec.runtime.budgets, this.progress, this.options.sessionId);
      if (verdict.kind === 'reached') throw new StopRun('paused', 'budget_exceeded', verdict.message);
      if (verdict.kind === 'ok') return;
      this.emit({ type: 'budget_warning', budget: verdict.budget, used: verdict.used, limit: verdict.limit, message: verdict.message });
    }
  }

  private messagesFor(step: PatternStep & { work: { kind: 'agent' } }): { messages: ChatMessage[]; context: Record<string, unknown> } {
    const { spec, variables } = this.options;
    const context = this.pattern.context(step.id, this.progress, variables);
    // Which of the step's two templates failed, and where in it: a limit's message alone (range(…) would
    // make …) does not say whether to look at the agent's prompt or the step's input.
    const render = (source: string, field: string): string => {
      try {
        return renderTemplate(source, context);
      } catch (error) {
        if (error instanceof TemplateError) throw new StopRun('failed', 'template_error', `${this.title(step.id)} (${step.work.agent}): template ${field}, line ${error.line}: ${error.message}`);
        throw error;
      }
    };
    const system = render(spec.agents[step.work.agent]?.prompt ?? '', `agents.${step.work.agent}.prompt`);
    const append = typeof step.work.append === 'function' ? step.work.append(variables) : (step.work.append ?? '');
    const user = render(step.work.input, 'input') + append;
    return { messages: [{ role: 'system', content: system }, { role: 'user', content: user }], context };
  }

  private async runStep(step: PatternStep): Promise<void> {
    const { sessionId, variables } = this.options;
    const id = step.id;
    // Idempotent: a step whose result is recorded is never applied again.
    if (this.progress.completed[id]) return;
    if (step.work.kind === 'approval') {
      await runApprovalStep(id, step.work.approval, { ...this.options, title: this.title(id), progress: this.progress, context: () => this.pattern.context(id, this.progress, variables), signal: this.abort.signal, emit: (body) => this.emit(body), stepsTotal: () => this.stepsTotalNow() });
      this.executed++;
      return;
    }
    const agentStep = step as PatternStep & { work: { kind: 'agent' } };
    const agent = agentStep.work.agent;
    const tries: StepTries = { autoAttempts: 0 };
    // A resumed step continues its agent's saved conversation instead of starting blank.
    const saved = this.progress.conversations[id];
    let conversation = saved ? loadConversation(this.options.blobs, saved) : undefined;
    for (;;) {
      if (this.cancelled) throw new StopRun('paused', 'user_exit', 'stopped by the user');
      // Another step stopped the session: no new attempt starts (its stop, graver or equal, is the session's).
      if (this.stop) throw new StopRun('paused', this.stop.error.reason, `${this.title(id)}: not retried, the session stopped`);
      this.checkBudget();
      const { messages, context } = this.messagesFor(agentStep);
      // The agent loop adds to `messages` as it goes: how long the step's own input is, before it does.
      const startLength = messages.length;
      const attempt = nextAttempt(this.progress, id);
      this.emit({ type: 'step_started', step: id, agent, attempt, idempotency_key: `${sessionId}:${id}:${attempt}`, ...(tries.lastRetry ? { retry: tries.lastRetry } : {}), ...this.stepsTotalNow() });
      // The model is never called before its step_started is on disk (group commit: one fdatasync for every step starting now).
      await this.options.journal.flush?.();
      const started = performance.now();
      const turn = { agent, step: id, attempt, messages: conversation ?? messages, context };
      let result: CompletionResult;
      try {
        result = await agentLoop(turn, { ...this.options, signal: this.abort.signal, emit: (body) => this.emit(body), stillOwned: this.stillOwned, recorded: (callId) => this.progress.tool_outcomes[id]?.[callId], notify: this.noticeListeners.size ? this.notify : undefined });
      } catch (error) {
        conversation = await this.continuation(classifyStop(error, this.cancelled), tries, { step: id, label: agent, attempt, start: messages, startLength, conversation: turn.messages, context });
        continue;
      }
      this.emit({ type: 'step_completed', step: id, agent, attempt, idempotency_key: `${sessionId}:${id}:${attempt}`, response: result.text, usage: result.usage, duration_ms: Math.round(performance.now() - started), ...(result.cut ? { cut: true as const } : {}) });
      this.executed++;
      if (tries.lastStop) this.recordAttempt({ step: id, tries, stop: tries.lastStop, strategy: 'none', outcome: { kind: 'success' } });
      return;
    }
  }

  private recordAttempt(a: { step: StepId; tries: StepTries; stop: Stop; strategy: 'same_session' | 'new_session' | 'none'; outcome: Extract<EngineEventBody, { type: 'resume_attempt' }>['outcome'] }): void {
    const policy = this.options.autoResume ?? defaultAutoResume;
    this.emit({
      type: 'resume_attempt', step: a.step, attempt: a.tries.autoAttempts, max_attempts: a.tries.lastRetry?.max ?? policy.maxAttempts, stop_reason: a.stop.reason,
      retry_after_ms: a.stop.retryAfterMs ?? null, strategy: a.strategy, message: a.stop.message, ...(a.stop.detail ? { detail: a.stop.detail } : {}), outcome: a.outcome,
    });
  }

  /**
   * What a stopped attempt leads to: waits and returns the conversation to retry with (the same
   * one, or a fresh one seeded with a summary), or ends the step paused or failed.
   */
  private async continuation(stop: Stop, tries: StepTries, at: { step: StepId; label: string; attempt: number; start: ChatMessage[]; startLength: number; conversation: ChatMessage[]; context: Record<string, unknown> }): Promise<ChatMessage[] | undefined> {
    const { step, attempt } = at;
    const title = this.title(step);
    const policy = this.options.autoResume ?? defaultAutoResume;
    const strategy = selectStrategy(stop, policy, tries.autoAttempts + 1);
    if (strategy.kind === 'pause' || strategy.kind === 'fail') {
      if (stop.reason !== 'user_exit') {
        this.emit({ type: 'step_failed', step, attempt, reason: stop.reason, message: stop.message, retryable: strategy.kind === 'pause' });
        this.recordAttempt({ step, tries, stop, strategy: 'none', outcome: strategy.kind === 'pause' ? { kind: 'skipped', why: strategy.why } : { kind: 'failure', retryable: false } });
      }
      throw new StopRun(strategy.kind === 'pause' ? 'paused' : 'failed', stop.reason, stop.reason === 'user_exit' ? strategy.why : `${title}: ${strategy.why}`);
    }
    // Another step stopped the session meanwhile: this one is not retried (a resume retries it).
    if (this.stop) throw new StopRun('paused', stop.reason, `${title}: ${stop.message}; not retried, the session stopped`);
    tries.autoAttempts++;
    tries.lastStop = stop;
    tries.lastRetry = { n: tries.autoAttempts, max: Math.min(policy.maxAttempts, stop.retryLimit ?? policy.maxAttempts) };
    if (strategy.kind === 'new_session') {
      // Nothing past the step's own input to summarize: it is what does not fit. Paused before a
      // summary is asked for (and paid) that could not make the conversation smaller.
      if (at.conversation.length <= at.startLength) {
        this.emit({ type: 'step_failed', step, attempt, reason: stop.reason, message: stop.message, retryable: true });
        throw new StopRun('paused', stop.reason, ownInputTooLong(title, stop.message));
      }
      this.recordAttempt({ step, tries, stop, strategy: 'new_session', outcome: { kind: 'delayed', next_attempt_at: new Date().toISOString() } });
      let summary: Summary;
      try {
        summary = await summarize(this.options.provider, { agent: at.label, step, attempt, context: at.context, signal: this.abort.signal }, at.conversation);
      } catch {
        throw new StopRun('paused', 'user_exit', 'stopped by the user while the conversation was summarized');
      }
      if (this.cancelled) throw new StopRun('paused', 'user_exit', 'stopped by the user while the conversation was summarized');
      const fresh = seededConversation(at.start, summary);
      // A fresh conversation no smaller than the one that overflowed cannot fit either: the step's own input is too long.
      if (conversationChars(fresh) >= conversationChars(at.conversation)) {
        this.emit({ type: 'step_failed', step, attempt, reason: stop.reason, message: stop.message, retryable: true });
        throw new StopRun('paused', stop.reason, ownInputTooLong(title, stop.message));
      }
      this.emit({ type: 'conversation_reset', step, attempt, blob: saveConversation(this.options.blobs, fresh), summary_source: summary.source, summary_chars: summary.text.length, dropped_messages: at.conversation.length, usage: summary.usage });
      return fresh;
    }
    this.recordAttempt({ step, tries, stop, strategy: 'same_session', outcome: { kind: 'delayed', next_attempt_at: new Date(Date.now() + strategy.delayMs).toISOString() } });
    const wait = new RetryWait(strategy.delayMs, this.abort.signal);
    this.waits.add(wait);
    const ended = await wait.done;
    this.waits.delete(wait);
    if (ended === 'cancelled') throw new StopRun('paused', 'user_exit', 'stopped by the user while waiting to retry');
    if (ended === 'abandon') throw new StopRun('paused', stop.reason, `${title}: ${stop.message}; the automatic retry was abandoned — resume when ready`);
    return at.conversation;
  }

  /** Artifacts go through the same write-ahead journal as file_write (as the `@artifacts` step, after every other). */
  private finishArtifacts(): void {
    const { spec, variables, cwd, blobs } = this.options;
    const target = this.options.artifacts ?? { dir: cwd, force: true };
    try {
      // The output folder is the artifacts' one root (it may lie outside the working directory, with
      // --out): a link swapped in below it cannot lead a write anywhere else, the user's files included.
      if (this.options.artifacts) makeFolders(target.dir);
      const context = this.pattern.artifactContext(this.progress, variables);
      for (const [i, artifact] of renderArtifacts(spec, context, target, (path) => sessionWrote(this.progress, path)).entries()) {
        writeWithIntent(artifact.path, artifact.content, `artifact_${i}`, { step: artifactsStep, attempt: 1, cwd: target.dir, extraRoots: [], blobs, sessionId: this.options.sessionId, stillOwned: this.stillOwned, emit: (body) => this.emit(body) });
        const hash = sha256(artifact.content);
        this.emit({ type: 'artifact_written', path: artifact.path, bytes: artifact.content.length, sha256: hash, ...(artifact.replaces ? { replaced_session: artifact.replaces.session_id } : {}) });
        // Told to the store, so that a later run knows this file, while unchanged, as acode's own output.
        target.owners?.recordWrite(artifact.path, { session_id: this.options.sessionId, sha256: hash });
      }
    } catch (error) {
      if (error instanceof TemplateError) throw new StopRun('failed', 'template_error', `artifact: ${error.message}`);
      if (error instanceof ArtifactPathError && error.brokenRule) {
        // Rendered from the session's own spec and responses: a resume would render it again.
        throw new StopRun('failed', 'artifact_error', `artifact: ${error.message}. No resume can change a path made from this session's spec and responses: fix outputs.artifacts and run the workflow again; the responses stay readable with 'acode sessions history ${this.options.sessionId}'`);
      }
      // Something on disk in the way: every step's work is kept, and a resume writes the artifacts once it is moved or the disk freed.
      if (error instanceof ArtifactPathError || isFileSystemRefusal(error)) throw new StopRun('paused', 'artifact_error', `artifact: ${error.message}; fix it, then resume`);
      throw error;
    }
  }
}
