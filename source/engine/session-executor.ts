import { makeFolders } from './make-folders.js';
import type { RunSummary } from './run-summary.js';
import { checkBudgets } from './budgets.js';
import type { WorkflowSpec } from '../spec/schema.js';
import { TemplateError } from '../spec/template.js';
import type { HttpExecutor } from './tools/http-executors.js';
import type { ApprovalDesk } from './approval.js';
import { StopRun, stopRank } from './stop-run.js';
import { ArtifactPathError, isFileSystemRefusal, renderArtifacts, sessionWrote, type ArtifactTarget } from './artifacts.js';
import { writeWithIntent } from './tools/write-ahead.js';
import { sha256, type BlobStore } from './blob-store.js';
import type { EngineEvent, EngineEventBody } from './events.js';
import { pricedCall, type StepPricer } from './prices.js';
import type { ReusableSteps } from './step-input-key.js';
import type { Journal } from './journal.js';
import { completedInOrder, type Pattern, type PatternStep } from './pattern.js';
import { stepCalled } from './step-names.js';
import { patternFor } from './patterns/pattern-for.js';
import type { Provider } from './provider.js';
import { defaultAutoResume, selectStrategy, type AutoResumePolicy, type Stop, type StepTries } from './resume-strategy.js';
import { RetryWait } from './retry-wait.js';
import { withFailurePolicy } from './failure-policy.js';
import { applyEvent, type SessionProgress } from './session-progress.js';
import { artifactsStep, type StepId } from './step-id.js';
import type { Variables } from './template-context.js';
import { maxParallel } from '../spec/max-parallel.js';
import { redactEvent } from '../secrets/event-redaction.js';
import type { NoticeListener, Notify, StepNotice } from './step-notice.js';
import type { AgentCliPort } from './agent-cli.js';
import type { StepHost } from './step-runner.js';
import { runStepWork } from './step-runners.js';

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
  /** Runs agent CLI steps (source/agent-cli/); absent, such a step fails saying so. */
  agentCli?: AgentCliPort;
  /** Prices each model call as it is journaled (engine/prices.ts); absent: no provider with prices. */
  price?: StepPricer;
  /** `acode fork --spec`: another session's completed steps, taken instead of a model call where a step's input key is theirs. */
  reusable?: ReusableSteps;
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
  /** How far the run continues on its own: the person's settings, with the spec's runtime.failure_policy. */
  private readonly policy: AutoResumePolicy;
  private executed = 0;
  /** Steps `fork --spec` took from its source during the run, their input unchanged: skipped like those completed before. */
  private reusedInRun = 0;
  private readonly waits = new Set<RetryWait>();
  /** The gravest stop so far, and the step it came from: the session ends with it. */
  private stop?: { error: StopRun; step: StepId | null };
  /** Approval steps nobody here can answer: they wait for `acode resume`. */
  private readonly waiting = new Set<StepId>();
  /** The last event this run's state was built from, said once, by its first event (see epoch-fence.ts). */
  private basedOn?: number;
  /** The agent of each step this run started: what its model calls are priced by. */
  private readonly agents = new Map<StepId, string>();
  /** False once another process took the session over: a file write checks it right before it happens. */
  private readonly stillOwned = (): boolean => this.options.journal.stillOwned?.() ?? true;

  constructor(private readonly options: SessionRunOptions) {
    this.progress = options.progress;
    this.pattern = options.pattern ?? patternFor(options.spec);
    this.policy = withFailurePolicy(options.autoResume ?? defaultAutoResume, options.spec.runtime.failure_policy);
    this.basedOn = options.progress.last_event_id;
    options.journal.writesAs?.(options.epoch ?? 0, options.progress.last_event_id);
    this.host = this.stepHost();
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

  private readonly notify: Notify = (notice: StepNotice) => {
    let full: Promise<void>[] | undefined;
    for (const listener of this.noticeListeners) {
      const backlog = listener(notice);
      if (backlog instanceof Promise) (full ??= []).push(backlog);
    }
    if (!full) return undefined;
    return full.length === 1 ? full[0] : Promise.all(full).then(() => undefined);
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
    const event = redactEvent({ ...pricedCall(body, this.options.price, (step) => this.agents.get(step)), ...stamp, ...(this.basedOn === undefined ? {} : { based_on: this.basedOn }) } as EngineEvent);
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
      steps_skipped: skipped + this.reusedInRun,
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
    // Model calls and agent CLIs at once are what the limit bounds: a question waiting for a person's answer holds no slot.
    const agents = new Set<StepId>();
    let failure: { error: unknown } | undefined;
    for (;;) {
      if (!this.stop && !failure && !this.cancelled) {
        for (const step of this.pattern.ready(this.progress)) {
          if (running.has(step.id) || this.waiting.has(step.id)) continue;
          if (step.work.kind !== 'approval' && agents.size >= limit) continue;
          if (step.work.kind !== 'approval') agents.add(step.id);
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

  /** How messages name a step: `step web/1`, the name `--step` and `--from-step` take (step-names.ts). */
  private title(id: StepId): string {
    return stepCalled(this.pattern.type, id);
  }

  /**
   * Before each model call of a step — its first, each tool round, a compaction's summary: a budget
   * reached pauses the session (a step under way keeps its saved conversation for the resume); one
   * past its warn_threshold is said once (engine/budgets.ts).
   */
  private checkBudget(): void {
    for (;;) {
      const verdict = checkBudgets(this.options.spec.runtime.budgets, this.progress, this.options.sessionId);
      if (verdict.kind === 'reached') throw new StopRun('paused', 'budget_exceeded', verdict.message);
      if (verdict.kind === 'ok') return;
      this.emit({ type: 'budget_warning', budget: verdict.budget, used: verdict.used, limit: verdict.limit, message: verdict.message });
    }
  }

  /** What a step's runner may use of the session (engine/step-runner.ts): built once, in the constructor. */
  private readonly host: StepHost;

  /** The host's fixed parts are the executor's own; what changes while the run goes on is read through getters. */
  private stepHost(): StepHost {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the getters read the executor's live state
    const executor = this;
    return {
      options: this.options,
      progress: this.progress,
      pattern: this.pattern,
      signal: this.abort.signal,
      get cancelled() {
        return executor.cancelled;
      },
      get sessionStop() {
        return executor.stop?.error;
      },
      get notify() {
        return executor.noticeListeners.size ? executor.notify : undefined;
      },
      emit: (body) => this.emit(body),
      title: (id) => this.title(id),
      stepsTotalNow: () => this.stepsTotalNow(),
      checkBudget: () => this.checkBudget(),
      stillOwned: () => this.stillOwned(),
      retryAfter: (stop, tries, step, attempt) => this.retryAfter(stop, tries, step, attempt),
      recordAttempt: (a) => this.recordAttempt(a),
    };
  }

  private async runStep(step: PatternStep): Promise<void> {
    // Idempotent: a step whose result is recorded is never applied again.
    if (this.progress.completed[step.id]) return;
    // What a model step's calls are priced by (an agent CLI says its own cost).
    if (step.work.kind === 'agent') this.agents.set(step.id, step.work.agent);
    // A step `fork --spec` took from its source, its input unchanged, is skipped like one completed before.
    if ((await runStepWork(step, this.host)) === 'reused') this.reusedInRun++;
    else this.executed++;
  }

  private recordAttempt(a: { step: StepId; tries: StepTries; stop: Stop; strategy: 'same_session' | 'new_session' | 'none'; outcome: Extract<EngineEventBody, { type: 'resume_attempt' }>['outcome'] }): void {
    const policy = this.policy;
    this.emit({
      type: 'resume_attempt', step: a.step, attempt: a.tries.autoAttempts, max_attempts: a.tries.lastRetry?.max ?? policy.maxAttempts, stop_reason: a.stop.reason,
      retry_after_ms: a.stop.retryAfterMs ?? null, strategy: a.strategy, message: a.stop.message, ...(a.stop.detail ? { detail: a.stop.detail } : {}), outcome: a.outcome,
    });
  }

  /**
   * What a stopped attempt leads to, for every kind of step: waits and returns 'same_session', returns
   * 'new_session' (the runner starts the fresh conversation and records the attempt), or ends the
   * step paused or failed.
   */
  private async retryAfter(stop: Stop, tries: StepTries, step: StepId, attempt: number): Promise<'same_session' | 'new_session'> {
    const title = this.title(step);
    const policy = this.policy;
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
    if (strategy.kind === 'new_session') return 'new_session';
    this.recordAttempt({ step, tries, stop, strategy: 'same_session', outcome: { kind: 'delayed', next_attempt_at: new Date(Date.now() + strategy.delayMs).toISOString() } });
    const wait = new RetryWait(strategy.delayMs, this.abort.signal);
    this.waits.add(wait);
    const ended = await wait.done;
    this.waits.delete(wait);
    if (ended === 'cancelled') throw new StopRun('paused', 'user_exit', 'stopped by the user while waiting to retry');
    if (ended === 'abandon') throw new StopRun('paused', stop.reason, `${title}: ${stop.message}; the automatic retry was abandoned — resume when ready`);
    return 'same_session';
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
