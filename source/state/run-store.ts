import type { SyncView } from './sync-line.js';
import { createStore, type StoreApi } from 'zustand/vanilla';
import { stepTitle, type StepId } from '../engine/step-id.js';
import { addUsage, type EngineEvent, type TokenUsage } from '../engine/events.js';
import type { ApprovalAnswer, ApprovalRequest } from '../engine/approval.js';
import { toolTarget } from '../engine/tools/tool-target.js';
import { retryReasonText, stopReasonText } from './stop-reason-text.js';
import { dollarsWith, noSaving, savingWith, type ResumeSaving, type StepPricer } from './step-cost.js';
import type { StepNotice } from '../engine/step-notice.js';
import { beatNow } from '../engine/beat.js';
import { StreamTails, type StepStream } from './step-streams.js';
import { cutText } from './step-results.js';

export type StepStatus = 'pending' | 'running' | 'waiting' | 'done' | 'skipped' | 'failed';

export interface StepView {
  id: StepId;
  /** Position in the pattern's shape (steps a pattern creates while it runs come last). */
  index: number;
  agent: string;
  /** How a person names it ("step 2", "task overview", "branch web step 1"). */
  title: string;
  /** Its lane: a parallel branch, a DAG level; null in a chain. */
  group: string | null;
  status: StepStatus;
  attempt: number;
  /** Set while the attempt is an automatic retry: numbered as the countdown was ("retry 2/5"). */
  retry?: { n: number; max: number };
  /** Every model call of the step so far (tool rounds, summaries, the answer). */
  tokens?: TokenUsage;
  durationMs?: number;
  note?: string;
  /** Skipped because a fork took it from its source (said "reused", not "completed earlier"). */
  reused?: boolean;
  /** When it became done, skipped or failed, counted in events: views print lanes in the order they finish. */
  finishedSeq?: number;
  /** When its current attempt started (ms since the epoch), for the elapsed time while it runs. */
  startedAt?: number;
}

export type RunPhase = 'starting' | 'running' | 'stopping' | 'completed' | 'paused' | 'failed' | 'cancelled' | 'awaiting_approval';

/** A wait before an automatic retry, for the countdown. */
export interface RetryCountdown {
  step: StepId;
  reason: string;
  message: string;
  /** When the retry happens (ms since the epoch). */
  at: number;
  /** When the wait was announced (ms since the epoch): a countdown drawn on an older tick counts from here. */
  since: number;
  attempt: number;
  maxAttempts: number;
}

/** What the run view shows; derived from engine events only. */
export interface RunState {
  sessionId: string;
  /** Whether the run keeps a session (not --no-save-session): what a pause can be resumed from. */
  saved: boolean;
  workflowName: string;
  /** The spec's pattern type (chain, workflow, parallel …): how the view lays out the steps. */
  pattern: string;
  steps: StepView[];
  phase: RunPhase;
  /** Steps completed in an earlier run and skipped by this one (a fork's: reused from its source). */
  skipped: number;
  /** What the skipped steps spent when they ran: what this run did not spend again. */
  saving: ResumeSaving;
  /** What this run's model calls cost; undefined when a model's price is unknown (or nothing prices them). */
  dollars: number | undefined;
  resumed: boolean;
  /** The session this run forked from, when it is a fork (its reused steps are no resume). */
  forkOf: string | null;
  tokens: TokenUsage;
  startedAt: number;
  /** The clock every time here is read on (injected in tests); views measure elapsed time with it. */
  clock: () => number;
  finishedAt?: number;
  message?: string;
  artifacts: string[];
  /** Set while the engine waits before an automatic retry. */
  retry: RetryCountdown | null;
  /** Set while an approval step waits for this person's answer. */
  approval: ApprovalRequest | null;
  /** The session's push to the team store, when one is configured: shown while it is degraded. */
  sync: SyncView | null;
  /** The run's background push made an attempt (run-session.ts is the only caller). */
  setSync(view: SyncView): void;
  /** What the person is typing as an approval's response, while its editor is open (read with typedResponse): the live area counts its rows. */
  approvalInput: { request: ApprovalRequest; text: string } | null;
  /** The approval panel's editor opened (the text so far), changed, or closed (null). */
  typeResponse(text: string | null): void;
  /**
   * Running steps whose model has begun to answer: set once per attempt. What it says changes too
   * often to be state (each change would be a frame): views read it with `streamText` as they draw.
   */
  streams: Readonly<Record<StepId, StepStream>>;
  /** The latest part of a running step's streamed text (tool calls as `→ name` lines), redacted. */
  streamText(step: StepId): string | undefined;
  /** The step whose stream last changed: the one a view with room for one shows. */
  latestStream: StepId | null;
  /** Applies notices of running steps, batched (bind-engine.ts is the only caller). */
  streamed(notices: readonly StepNotice[]): void;
  /** Answers the pending approval step (the view's a / r / e keys). */
  answerApproval(answer: ApprovalAnswer): void;
  /** The engine asks this person (bind-engine's approval desk is the only caller). */
  askApproval(request: ApprovalRequest | null): void;
  /** Applies one engine event (bind-engine.ts is the only caller). */
  apply(event: EngineEvent): void;
  /** Ctrl+C: asks the engine to pause after flushing the checkpoint. */
  requestStop(): void;
  /** During a countdown: retry now (r). */
  retryNow(): void;
  /** During a countdown: give up; the session pauses, resumable (a). */
  abandonRetry(): void;
}

export interface RunControls {
  cancel(): void;
  retryNow(): void;
  abandonRetry(): void;
  /** Hands the person's answer to the engine's waiting approval step. */
  answerApproval(answer: ApprovalAnswer): void;
}

export interface RunStoreInit {
  sessionId: string;
  workflowName: string;
  /** The spec's pattern type; absent: chain. */
  pattern?: string;
  /** The pattern's steps as known when the run starts. */
  steps: readonly { id: StepId; label: string; title: string; group: string | null }[];
  controls: RunControls;
  now?: () => number;
  /** Prices steps by their agent's model; absent or unknown: tokens only. */
  price?: StepPricer;
  /** false for a run with --no-save-session: nothing of it can be resumed. Absent: saved. */
  saved?: boolean;
  /** The session a fork started from: the header says "fork of <id>", not "resumed". */
  forkOf?: string;
  /** A step the pattern created while running, as the pattern names it now (routes, iterations, workers, graph visits). */
  describe?: (id: StepId) => { label: string; title: string; group: string | null; detail?: string } | undefined;
}

export type RunStore = StoreApi<RunState>;

/** The steps with one changed; a step the pattern created while running is added at the end, named as the pattern names it. */
function updateStep(steps: StepView[], id: StepId, patch: Partial<StepView>, describeNew?: RunStoreInit['describe']): StepView[] {
  if (!steps.some((step) => step.id === id)) {
    const known = describeNew?.(id);
    return [...steps, { id, index: steps.length, agent: patch.agent ?? known?.label ?? '', title: known?.title ?? stepTitle(id), group: known?.group ?? null, status: 'pending', attempt: 0, ...patch }];
  }
  return steps.map((step) => (step.id === id ? { ...step, ...patch } : step));
}

/** The agent a step runs (empty for a step not known yet). */
const agentOf = (steps: readonly StepView[], id: StepId) => steps.find((step) => step.id === id)?.agent ?? '';

/** A step's tokens with one more model call's. */
function stepTokens(steps: readonly StepView[], id: StepId, usage: TokenUsage): TokenUsage {
  return addUsage(steps.find((step) => step.id === id)?.tokens ?? { input: 0, output: 0 }, usage);
}

/** One store per run view; the engine writes through `apply`, the view reads with selectors. */
export function createRunStore(init: RunStoreInit): RunStore {
  const update = (steps: StepView[], id: StepId, patch: Partial<StepView>): StepView[] => updateStep(steps, id, patch, init.describe);
  const now = init.now ?? Date.now;
  let finished = 0;
  /** A step reaches an end (done, skipped, failed): stamped so lanes can be printed in the order they finish. */
  const ended = (status: 'done' | 'skipped' | 'failed'): Pick<StepView, 'status' | 'finishedSeq'> => ({ status, finishedSeq: ++finished });
  /** Approval steps asked and not answered yet. */
  const asked = new Set<StepId>();
  /**
   * The run waits on the person only while a question is open and no other step runs; a branch
   * still running keeps it running (Ctrl+C then pauses that branch, not just the wait).
   */
  const tails = new StreamTails();
  /** The step's stream goes once its attempt ends; a new attempt starts with nothing shown. */
  const withoutStream = (state: RunState, step: StepId): Pick<RunState, 'streams' | 'latestStream'> => {
    tails.reset(step);
    const { [step]: _gone, ...streams } = state.streams;
    return { streams, latestStream: state.latestStream === step ? null : state.latestStream };
  };
  const phaseWith = (phase: RunPhase, steps: readonly StepView[]): RunPhase => {
    if (phase !== 'running' && phase !== 'awaiting_approval') return phase;
    return asked.size > 0 && !steps.some((step) => step.status === 'running') ? 'awaiting_approval' : 'running';
  };
  return createStore<RunState>()((set, get) => ({
    sessionId: init.sessionId,
    saved: init.saved ?? true,
    workflowName: init.workflowName,
    pattern: init.pattern ?? 'chain',
    steps: init.steps.map((step, index) => ({ id: step.id, index, agent: step.label, title: step.title, group: step.group, status: 'pending', attempt: 0 })),
    phase: 'starting',
    skipped: 0,
    saving: noSaving(init.steps.length, init.price),
    dollars: init.price ? 0 : undefined,
    resumed: false,
    forkOf: init.forkOf ?? null,
    tokens: { input: 0, output: 0 },
    startedAt: now(),
    clock: now,
    artifacts: [],
    retry: null,
    approval: null,
    approvalInput: null,
    sync: null,
    setSync(view) {
      set({ sync: view });
    },
    streams: {},
    latestStream: null,
    streamed(notices) {
      const running = new Map(get().steps.filter((step) => step.status === 'running').map((step) => [step.id, step.attempt]));
      const touched = tails.add(notices, (step) => running.get(step));
      if (touched.size === 0) return;
      const { streams, latestStream } = get();
      const begun = [...touched].filter(([step, attempt]) => streams[step]?.attempt !== attempt);
      const last = [...notices].reverse().find((notice) => touched.has(notice.step))!.step;
      // Only a new attempt's first words and a change of speaker are news: the rest is read as frames are drawn.
      if (begun.length === 0 && last === latestStream) return;
      set({ streams: begun.length ? { ...streams, ...Object.fromEntries(begun.map(([step, attempt]) => [step, { attempt }])) } : streams, latestStream: last });
      // First words show at once, with the view's tick brought forward: one frame, not one of their own.
      if (begun.length) beatNow();
    },
    streamText(step) {
      return tails.shown(step);
    },
    answerApproval(answer) {
      if (!get().approval) return;
      set({ approval: null });
      init.controls.answerApproval(answer);
    },
    askApproval(request) {
      set({ approval: request });
    },
    typeResponse(text) {
      const request = get().approval;
      set({ approvalInput: request && text !== null ? { request, text } : null });
    },
    retryNow() {
      if (get().retry) init.controls.retryNow();
    },
    abandonRetry() {
      if (get().retry) init.controls.abandonRetry();
    },
    requestStop() {
      if (get().phase === 'awaiting_approval') {
        // Nothing runs: the session simply keeps waiting for its answer.
        set({ approval: null });
        init.controls.cancel();
        return;
      }
      if (get().phase !== 'running' && get().phase !== 'starting') return;
      set({ phase: 'stopping', message: 'pausing: flushing the checkpoint…' });
      init.controls.cancel();
    },
    apply(event) {
      const { steps } = get();
      switch (event.type) {
        case 'session_started':
          set({
            phase: get().phase === 'stopping' ? 'stopping' : 'running',
            skipped: event.steps_skipped,
            resumed: event.resumed,
            tokens: event.tokens,
          });
          return;
        case 'step_skipped': {
          // A fork's steps copied from its source before the run: reused, not skipped.
          const next = update(steps, event.step, { ...ended('skipped'), ...(init.forkOf !== undefined ? { reused: true } : {}) });
          set({ steps: next, saving: { ...savingWith(get().saving, event.agent, event.usage, init.price), stepsTotal: next.length } });
          return;
        }
        case 'tool_called':
          set({ steps: update(steps, event.step, { note: `→ ${event.name}${toolTarget(event.args)}` }) });
          return;
        case 'agent_cli_started':
          set({ steps: update(steps, event.step, { note: `${event.cli} pid ${event.pid}${event.resume_id ? `, continuing ${event.resume_id}` : ''}` }) });
          return;
        case 'agent_cli_session':
          set({ steps: update(steps, event.step, { note: event.session_id ? `${event.cli} conversation ${event.session_id}` : event.message }) });
          return;
        case 'step_reused':
          // Taken during the run (fork --spec): the row ends as a step completed earlier does.
          if (event.input_unchanged) set({ steps: update(steps, event.step, { ...ended('skipped'), reused: true }), skipped: get().skipped + 1 });
          return;
        case 'session_forked':
        case 'limits_raised':
        case 'budget_warning':
        case 'resume_planned':
        case 'lock_taken_over':
        case 'tool_result':
        case 'file_read':
        case 'file_write_intended':
        case 'file_write_applied':
        case 'file_write_recovered':
        case 'tool_effect_intended':
        case 'tool_effect_recovered':
        case 'environment_accepted':
        case 'agent_cli_files':
          return;
        case 'step_started': {
          const next = update(steps, event.step, { status: 'running', agent: event.agent, attempt: event.attempt, retry: event.retry, note: undefined, startedAt: now() });
          set({ retry: get().retry?.step === event.step ? null : get().retry, steps: next, phase: phaseWith(get().phase, next), ...withoutStream(get(), event.step) });
          return;
        }
        case 'resume_attempt': {
          if (event.outcome.kind !== 'delayed' || event.strategy !== 'same_session') return set({ retry: null });
          const reason = retryReasonText(event.stop_reason, event.detail);
          const next = update(steps, event.step, { status: 'waiting', note: reason });
          set({
            ...withoutStream(get(), event.step),
            retry: { step: event.step, reason, message: event.message, at: Date.parse(event.outcome.next_attempt_at), since: Date.now(), attempt: event.attempt, maxAttempts: event.max_attempts },
            steps: next,
            phase: phaseWith(get().phase, next),
          });
          return;
        }
        case 'conversation_saved':
          set({ tokens: addUsage(get().tokens, event.usage), dollars: dollarsWith(get().dollars, init.price, agentOf(steps, event.step), event.usage), steps: update(steps, event.step, { tokens: stepTokens(steps, event.step, event.usage) }) });
          return;
        case 'conversation_reset':
          set({
            tokens: addUsage(get().tokens, event.usage),
            dollars: dollarsWith(get().dollars, init.price, agentOf(steps, event.step), event.usage),
            steps: update(steps, event.step, { tokens: stepTokens(steps, event.step, event.usage), note: `${event.compacted ? 'conversation compacted' : 'new conversation'} (summary ${event.summary_source === 'model' ? 'by the model' : 'by truncation'})` }),
          });
          return;
        case 'step_retry_scheduled':
          set({ steps: update(steps, event.step, { status: 'waiting', note: `${stopReasonText(event.reason)}: retrying in ${Math.ceil(event.delay_ms / 1000)} s` }) });
          return;
        case 'step_completed': {
          asked.delete(event.step);
          const next = update(steps, event.step, { ...ended('done'), tokens: stepTokens(steps, event.step, event.usage), durationMs: event.duration_ms, note: event.cut ? cutText : init.describe?.(event.step)?.detail });
          set({ ...withoutStream(get(), event.step), steps: next, phase: phaseWith(get().phase, next), tokens: addUsage(get().tokens, event.usage), dollars: event.cost_usd !== undefined ? (get().dollars ?? 0) + event.cost_usd : dollarsWith(get().dollars, init.price, agentOf(steps, event.step), event.usage) });
          return;
        }
        case 'step_failed': {
          const next = update(steps, event.step, { ...ended('failed'), note: event.message });
          set({ ...withoutStream(get(), event.step), steps: next, phase: phaseWith(get().phase, next) });
          return;
        }
        case 'artifact_written':
          set({ artifacts: [...get().artifacts, event.path] });
          return;
        case 'session_paused':
          set({
            retry: null,
            streams: {},
            latestStream: null,
            phase: 'paused',
            finishedAt: now(),
            message: event.message,
            steps: steps.map((step) => (step.status === 'running' || step.status === 'waiting' ? { ...step, status: 'pending', note: 'interrupted' } : step)),
          });
          return;
        case 'session_completed':
          set({ phase: 'completed', finishedAt: now(), ...(event.note ? { message: event.note } : {}) });
          return;
        case 'approval_requested': {
          asked.add(event.step);
          const next = update(steps, event.step, { status: 'waiting', note: 'awaiting approval' });
          set({ phase: phaseWith(get().phase, next), steps: next });
          return;
        }
        case 'approval_answered': {
          asked.delete(event.step);
          // The next branch's question may already be up: only this step's answer closes the panel.
          const approval = get().approval?.step === event.step ? null : get().approval;
          const next = update(steps, event.step, { note: event.decision });
          set({ phase: phaseWith(get().phase, next), approval, steps: next });
          return;
        }
        case 'session_cancelled':
          set({ phase: 'cancelled', finishedAt: now(), message: event.message, approval: null });
          return;
        case 'session_failed':
          set({ phase: 'failed', finishedAt: now(), message: event.message });
          return;
      }
    },
  }));
}

/** The response being typed for the approval asked now (null: its editor is closed): an answered approval's leftover text never counts. */
export function typedResponse(s: Pick<RunState, 'approval' | 'approvalInput'>): string | null {
  return s.approval && s.approvalInput?.request === s.approval ? s.approvalInput.text : null;
}
