import type { AgentCliRun } from './agent-cli.js';
import { epochOf, fenceEvents } from './epoch-fence.js';
import type { StepId } from './step-id.js';
import { addUsage, type ApprovalDecision, type EngineEvent, type PendingEffect, type PendingWrite, type SessionStatus, type StopReason, type TokenUsage } from './events.js';

/** The last state of a file the session read or wrote. */
export interface FileSeen {
  hash: string | null;
  blob: string | null;
  op: 'read' | 'write';
  step: StepId;
  at: string;
}

/** One finished step: its id, and what templates see of it (strands-cli's record shape). */
export interface StepRecord {
  id: StepId;
  agent: string;
  response: string;
  tokens_estimated: number;
  /** The response stopped at the model's output limit (step_completed's `cut`): a fork's reuse keeps the mark. */
  cut?: true;
}

/**
 * A journaled outcome of a tool call in the unfinished round: a resume answers the call with it
 * instead of running the tool again. `result`: the tool's answer as the model got it (the full text
 * is in `output_blob` when longer than the event's `output`) · `write`: a file_write found applied
 * (by the tool, or by a resume's recovery) whose result was never journaled.
 */
export type RecordedToolOutcome =
  | { kind: 'result'; ok: boolean; output: string; output_blob: string | null }
  | { kind: 'write'; path: string; already: boolean };

/** A started step: its idempotency key was persisted before it ran. */
export interface InProgressStep {
  step: StepId;
  attempt: number;
  idempotency_key: string;
}

/** An approval answered but not yet applied (the process died in between). */
export interface AnsweredApproval {
  decision: ApprovalDecision;
  response: string;
}

/**
 * A session's progress: what the checkpoint stores (minus what is replayed) and what replaying the
 * event log rebuilds. One reducer serves both, so the two agree by construction. Every per-step
 * field is keyed by step id, so steps of any pattern — several at once — each keep their own.
 */
export interface SessionProgress {
  status: SessionStatus;
  steps_total: number;
  /** How many steps have completed (or were reused by a fork). */
  steps_done: number;
  /** Steps started and not finished, by id: several at once when branches run concurrently. */
  in_progress: Record<StepId, InProgressStep>;
  /** Approval steps asked and not answered yet, in the order asked: the session is AWAITING_APPROVAL while any is. */
  awaiting: StepId[];
  tokens: TokenUsage;
  stop_reason: StopReason | null;
  error: string | null;
  artifacts: string[];
  last_event_id: number;
  /** Lock epoch of the last event: a checkpoint from a superseded holder has a lower one than the log. */
  epoch: number;
  /** Timestamp of the last event: new events never go back in time, so (ts, id) order is id order. */
  last_event_at: string | null;
  /** The start of the latest step response, for listings (constant size). */
  last_response_preview: string;
  /**
   * Tokens each step spent, by id: every model call of every attempt (tool rounds, summaries, the
   * final answer), so the steps add up to `tokens`. Kept after the step finishes: what a resume
   * saves by skipping it (replayed, not checkpointed).
   */
  spent: Record<StepId, TokenUsage>;
  /** Finished steps, by id, in the order they finished (replayed, not checkpointed). */
  completed: Record<StepId, StepRecord>;
  /** The id of the step that finished last: `last_response` of artifacts (replayed, not checkpointed). */
  last_completed: StepId | null;
  /** Every file the session read or wrote, as it last saw it (replayed, not checkpointed). */
  files: Record<string, FileSeen>;
  /** Writes journaled but not yet known to be applied, by tool call id (replayed, not checkpointed). */
  pending_writes: Record<string, PendingWrite>;
  /** Calls with effects outside the journal that started and have no result yet, by call id (replayed, not checkpointed). */
  pending_effects: Record<string, PendingEffect>;
  /** Time the session's steps took, every run included (replayed, not checkpointed): runtime.budgets.max_duration_s. */
  active_ms: number;
  /** Dollars of the session's model calls, every run included, as each was priced when made (replayed, not checkpointed): runtime.budgets.max_cost_usd. */
  cost_usd: number;
  /** Budgets whose warn_threshold was reached and said (replayed, not checkpointed): each is said once. */
  budgets_warned: string[];
  /** Each unfinished step's latest saved conversation, which a resume continues (replayed, not checkpointed). */
  conversations: Record<StepId, string>;
  /** Approvals answered but not yet applied: a resume applies them without asking again (replayed, not checkpointed). */
  answered: Record<StepId, AnsweredApproval>;
  /**
   * Outcomes journaled for each in-progress step's tool calls since its conversation was last
   * saved, by step and call id: the round a resume must finish (replayed, not checkpointed).
   */
  tool_outcomes: Record<StepId, Record<string, RecordedToolOutcome>>;
  /** Each agent CLI step's latest child process and conversation id (replayed, not checkpointed; kept once finished, for views). */
  agent_cli: Record<StepId, AgentCliRun>;
  /** The latest conversation id of each named CLI session (`session:` in the spec), which the next step of that session continues (replayed). */
  cli_sessions: Record<string, string>;
}

/** What is replayed from the log rather than stored in the checkpoint (its size never grows with the session). */
type Replayed = 'active_ms' | 'cost_usd' | 'budgets_warned' | 'spent' | 'completed' | 'last_completed' | 'files' | 'pending_writes' | 'pending_effects' | 'conversations' | 'answered' | 'tool_outcomes' | 'agent_cli' | 'cli_sessions';

export type Checkpoint = Omit<SessionProgress, Replayed>;

export function initialProgress(stepsTotal: number): SessionProgress {
  return {
    status: 'created',
    steps_total: stepsTotal,
    steps_done: 0,
    in_progress: {},
    awaiting: [],
    tokens: { input: 0, output: 0 },
    stop_reason: null,
    error: null,
    artifacts: [],
    last_event_id: 0,
    epoch: 0,
    last_event_at: null,
    last_response_preview: '',
    active_ms: 0,
    cost_usd: 0,
    budgets_warned: [],
    spent: {},
    completed: {},
    last_completed: null,
    files: {},
    pending_writes: {},
    pending_effects: {},
    conversations: {},
    answered: {},
    tool_outcomes: {},
    agent_cli: {},
    cli_sessions: {},
  };
}

/** Outputs longer than this were cut in tool_result events written before `output_blob` existed. */
const legacyOutputChars = 2000;

/** Records a tool call's outcome if it belongs to an in-progress step (artifacts' writes never do). */
function recordOutcome(progress: SessionProgress, step: StepId, callId: string, outcome: RecordedToolOutcome): void {
  if (progress.in_progress[step]) (progress.tool_outcomes[step] ??= {})[callId] = outcome;
}

/** A step finished (by this session, or reused by a fork): nothing of its attempt is needed any more. */
function finishStep(progress: SessionProgress, record: StepRecord): void {
  if (!progress.completed[record.id]) progress.steps_done++;
  progress.completed[record.id] = record;
  progress.last_completed = record.id;
  delete progress.in_progress[record.id];
  delete progress.conversations[record.id];
  delete progress.answered[record.id];
  delete progress.tool_outcomes[record.id];
  if (progress.awaiting.includes(record.id)) progress.awaiting = progress.awaiting.filter((step) => step !== record.id);
  progress.last_response_preview = preview(record.response);
}

/** Counts one model call's tokens (and dollars, when priced) for the session and for its step; returns the step's tokens so far. */
function spend(progress: SessionProgress, step: StepId, usage: TokenUsage, dollars: number | undefined): TokenUsage {
  progress.tokens = addUsage(progress.tokens, usage);
  progress.cost_usd += dollars ?? 0;
  return (progress.spent[step] = addUsage(progress.spent[step] ?? { input: 0, output: 0 }, usage));
}

function preview(response: string): string {
  return response.length > 200 ? `${response.slice(0, 200)}…` : response;
}

/** Applies one event. Mutates and returns `progress`: the executor calls it once per step. */
export function applyEvent(progress: SessionProgress, event: EngineEvent): SessionProgress {
  progress.last_event_id = event.event_id;
  progress.epoch = epochOf(event);
  progress.last_event_at = event.ts;
  switch (event.type) {
    case 'session_started':
      progress.status = 'running';
      // A run asks its open approvals again.
      progress.awaiting = [];
      progress.steps_total = event.steps_total;
      progress.stop_reason = null;
      progress.error = null;
      break;
    case 'step_started':
      progress.in_progress[event.step] = { step: event.step, attempt: event.attempt, idempotency_key: event.idempotency_key };
      // A pattern that creates steps while it runs says how many it knows of now.
      if (event.steps_total !== undefined) progress.steps_total = event.steps_total;
      break;
    case 'step_completed': {
      const spent = spend(progress, event.step, event.usage, event.cost_usd);
      progress.active_ms += event.duration_ms;
      finishStep(progress, { id: event.step, agent: event.agent, response: event.response, tokens_estimated: spent.input + spent.output, ...(event.cut ? { cut: true as const } : {}) });
      break;
    }
    case 'step_reused':
      finishStep(progress, { id: event.step, agent: event.agent, response: event.response, tokens_estimated: 0, ...(event.cut ? { cut: true as const } : {}) });
      break;
    case 'artifact_written':
      if (!progress.artifacts.includes(event.path)) progress.artifacts.push(event.path);
      break;
    case 'session_paused':
    case 'session_failed':
    case 'session_cancelled':
      progress.status = event.type === 'session_paused' ? 'paused' : event.type === 'session_failed' ? 'failed' : 'cancelled';
      progress.stop_reason = event.reason;
      progress.error = event.message;
      break;
    case 'approval_requested':
      if (!progress.awaiting.includes(event.step)) progress.awaiting.push(event.step);
      progress.status = 'awaiting_approval';
      progress.stop_reason = null;
      progress.error = null;
      break;
    case 'approval_answered':
      progress.awaiting = progress.awaiting.filter((step) => step !== event.step);
      // Another branch's question may still be open.
      progress.status = progress.awaiting.length ? 'awaiting_approval' : 'running';
      progress.answered[event.step] = { decision: event.decision, response: event.response };
      break;
    case 'session_completed':
      progress.status = 'completed';
      progress.in_progress = {};
      break;
    case 'file_read':
      progress.files[event.path] = { hash: event.hash, blob: event.blob, op: 'read', step: event.step, at: event.ts };
      break;
    case 'file_write_intended': {
      const { type: _type, call_id, event_id: _id, ts: _ts, ...write } = event;
      progress.pending_writes[call_id] = write;
      break;
    }
    case 'file_write_applied':
      delete progress.pending_writes[event.call_id];
      progress.files[event.path] = { hash: event.hash, blob: event.blob, op: 'write', step: event.step, at: event.ts };
      recordOutcome(progress, event.step, event.call_id, { kind: 'write', path: event.path, already: event.already });
      break;
    case 'file_write_recovered':
      delete progress.pending_writes[event.call_id];
      progress.files[event.path] = { hash: event.hash, blob: event.blob, op: 'write', step: event.step, at: event.ts };
      if (event.outcome === 'applied') recordOutcome(progress, event.step, event.call_id, { kind: 'write', path: event.path, already: false });
      break;
    case 'tool_effect_intended': {
      const { type: _type, call_id, event_id: _id, ts: _ts, ...effect } = event;
      progress.pending_effects[call_id] = effect;
      break;
    }
    case 'tool_effect_recovered':
      delete progress.pending_effects[event.call_id];
      // Not run again: the round gives the model this answer, as a journaled result would be given.
      if (event.outcome === 'not_done' && event.output !== undefined) recordOutcome(progress, event.step, event.call_id, { kind: 'result', ok: false, output: event.output, output_blob: null });
      break;
    case 'tool_result':
      delete progress.pending_effects[event.call_id];
      // A result from before output_blob was recorded may have been cut: only a whole one can be replayed.
      if (event.output_blob !== undefined || event.output.length < legacyOutputChars) {
        recordOutcome(progress, event.step, event.call_id, { kind: 'result', ok: event.ok, output: event.output, output_blob: event.output_blob ?? null });
      }
      break;
    case 'environment_accepted':
      for (const file of event.files) {
        const seen = progress.files[file.path];
        if (seen) progress.files[file.path] = { ...seen, hash: file.hash, blob: file.blob, at: event.ts };
      }
      break;
    case 'conversation_saved':
    case 'conversation_reset':
      progress.conversations[event.step] = event.blob;
      spend(progress, event.step, event.usage, event.cost_usd);
      // The saved conversation holds every outcome so far (or starts a round none belongs to yet).
      delete progress.tool_outcomes[event.step];
      break;
    case 'agent_cli_started':
      progress.agent_cli[event.step] = { cli: event.cli, attempt: event.attempt, pid: event.pid, started: event.started, cwd: event.cwd, session_id: event.resume_id, ...(event.session ? { session: event.session } : {}), ...(event.tree ? { tree: event.tree } : {}) };
      break;
    case 'agent_cli_files':
      for (const file of event.files) progress.files[file.path] = { hash: file.hash, blob: file.blob, op: 'write', step: event.step, at: event.ts };
      break;
    case 'agent_cli_session': {
      const run = progress.agent_cli[event.step];
      if (run && event.session_id) run.session_id = event.session_id;
      if (event.session && event.session_id) progress.cli_sessions[event.session] = event.session_id;
      break;
    }
    case 'budget_warning':
      if (!progress.budgets_warned.includes(event.budget)) progress.budgets_warned.push(event.budget);
      break;
    case 'step_skipped':
    case 'step_retry_scheduled':
    case 'resume_attempt':
    case 'step_failed':
    case 'session_forked':
    case 'limits_raised':
    case 'resume_planned':
    case 'lock_taken_over':
    case 'tool_called':
      break;
  }
  return progress;
}

/** The attempt number a step's next try gets: one past the attempt left in progress, else 1. */
export function nextAttempt(progress: SessionProgress, step: StepId): number {
  return (progress.in_progress[step]?.attempt ?? 0) + 1;
}

/** Replay order: (timestamp, event_id), as DESIGN.md §4 fixes it. */
export function compareEvents(a: EngineEvent, b: EngineEvent): number {
  return a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : a.event_id - b.event_id;
}

/** Rebuilds progress from the event log (in file order); superseded lock holders' events are fenced out first. */
export function replayEvents(events: readonly EngineEvent[], stepsTotal: number): SessionProgress {
  const progress = initialProgress(stepsTotal);
  for (const event of fenceEvents(events).sort(compareEvents)) applyEvent(progress, event);
  return progress;
}

export function toCheckpoint(progress: SessionProgress): Checkpoint {
  const { active_ms: _active, cost_usd: _cost, budgets_warned: _warned, spent: _spent, completed: _completed, last_completed: _last, files: _files, pending_writes: _pending, pending_effects: _effects, conversations: _conversations, answered: _answered, tool_outcomes: _outcomes, agent_cli: _cli, cli_sessions: _sessions, ...checkpoint } = progress;
  return { ...checkpoint, in_progress: { ...checkpoint.in_progress }, awaiting: [...checkpoint.awaiting], artifacts: [...checkpoint.artifacts], tokens: { ...checkpoint.tokens } };
}
