import type { EngineEvent, EngineEventBody } from './events.js';
import type { Pattern, PatternStep, StepWork } from './pattern.js';
import type { Stop, StepTries } from './resume-strategy.js';
import type { SessionRunOptions } from './session-executor.js';
import type { SessionProgress } from './session-progress.js';
import type { StepId } from './step-id.js';
import type { Notify } from './step-notice.js';
import type { StopRun } from './stop-run.js';

/**
 * What the scheduler lends a step while it runs: the session's state and journal, and the one
 * continuation policy every kind of step shares (which stops are retried, how long to wait, when the
 * session pauses instead). A runner decides only what its kind of work does.
 */
export interface StepHost {
  readonly options: SessionRunOptions;
  readonly progress: SessionProgress;
  readonly pattern: Pattern;
  readonly signal: AbortSignal;
  readonly cancelled: boolean;
  /** Another step's stop, which ends the session: no new attempt starts after it. */
  readonly sessionStop: StopRun | undefined;
  emit(body: EngineEventBody): EngineEvent;
  /** How messages name a step ("step 2", "step web/1", "step review"): its name, as --step takes it. */
  title(id: StepId): string;
  /** The steps the pattern knows of now, when more than the session said (see step_started.steps_total). */
  stepsTotalNow(): { steps_total?: number };
  /** Before each paid call: a budget reached pauses the session (throws StopRun). */
  checkBudget(): void;
  /** False once another process took the session over. */
  stillOwned(): boolean;
  /** Transient notices (streamed text, tool calls) for whoever watches; undefined when nobody does. A promise: see NoticeListener. */
  notify: Notify | undefined;
  /**
   * What a stopped attempt leads to under the session's policy: returns after the wait when the step
   * is to be retried in the same conversation; returns 'new_session' when it must start a fresh one
   * (the runner builds it, then records the attempt); throws StopRun when the session pauses or fails.
   */
  retryAfter(stop: Stop, tries: StepTries, step: StepId, attempt: number): Promise<'same_session' | 'new_session'>;
  recordAttempt(a: { step: StepId; tries: StepTries; stop: Stop; strategy: 'same_session' | 'new_session' | 'none'; outcome: Extract<EngineEventBody, { type: 'resume_attempt' }>['outcome'] }): void;
}

/** Runs one step of its kind to completion (step_completed journaled) or throws StopRun; 'reused': taken from a fork's source instead (step_reused). */
export type StepRunner<W extends StepWork> = (step: PatternStep & { work: W }, host: StepHost) => Promise<void | 'reused'>;

/** One runner per kind of work, keyed by `work.kind`: a new kind that lacks one does not compile. */
export type StepRunners = { [K in StepWork['kind']]: StepRunner<Extract<StepWork, { kind: K }>> };
