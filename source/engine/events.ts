/**
 * Everything the engine reports, as one discriminated union: the same objects go to the event log,
 * the zustand store and the plain-line printer.
 */
import type { StepId } from './step-id.js';

export type SessionStatus = 'created' | 'running' | 'awaiting_approval' | 'paused' | 'completed' | 'failed' | 'cancelled';

export const terminalStatuses: readonly SessionStatus[] = ['completed', 'failed', 'cancelled'];

export interface TokenUsage {
  input: number;
  output: number;
}

/** Tokens so far plus one model call's. */
export function addUsage(total: TokenUsage, usage: TokenUsage): TokenUsage {
  return { input: total.input + usage.input, output: total.output + usage.output };
}

/** Why a session stopped short of completion. */
/**
 * Why a session or step stopped. `pattern_limit`: a pattern's own cap was reached (a graph node's
 * max_iterations); `unreadable_answer`: a model's decision (a route, a score, a plan) could not be
 * read after its retries.
 */
export const stopReasons = ['user_exit', 'crash', 'rate_limit', 'context_exhausted', 'provider_error', 'budget_exceeded', 'template_error', 'artifact_error', 'approval_rejected', 'disk_full', 'pattern_limit', 'unreadable_answer'] as const;
export type StopReason = (typeof stopReasons)[number];

/** A file write announced but not yet known to be complete. */
export interface PendingWrite {
  step: StepId;
  attempt: number;
  path: string;
  before_hash: string | null;
  before_blob: string | null;
  after_hash: string;
  after_blob: string;
  bytes: number;
}

/**
 * A tool call with an effect outside the journal's reach (python_exec, an http_request that is not
 * GET), journaled before it runs: if the session stops before its result is, it may or may not have
 * happened, and a resume never runs it again without deciding (engine/effect-recovery.ts).
 */
export interface PendingEffect {
  step: StepId;
  attempt: number;
  name: string;
  /** What it does, in a few words for the plan: `python_exec: 12 lines`, `POST https://host/path`. */
  what: string;
}

/** How a resume settled an uncertain call: run again, or taken as not done (the model is told so, it is not run). */
export type EffectRecovery = 'run_again' | 'not_done';

/** approved: the default response · edited: the person's own response · rejected: stop the session. */
export type ApprovalDecision = 'approved' | 'edited' | 'rejected';

/** What became of an automatic continuation. */
export type AttemptOutcome =
  | { kind: 'delayed'; next_attempt_at: string }
  | { kind: 'success' }
  | { kind: 'failure'; retryable: boolean }
  | { kind: 'skipped'; why: string };

/** applied: the file already held the new content · not_applied: it still held the old · rolled_back: a torn write was undone · kept: a torn write was left for the retry. */
export type WriteRecovery = 'applied' | 'not_applied' | 'rolled_back' | 'kept';

/** A step's rendered prompt: the messages its conversation starts from. */
export interface StepPrompt {
  system: string;
  input: string;
}

export type EngineEventBody =
  | { type: 'session_started'; workflow_name: string; steps_total: number; resumed: boolean; steps_skipped: number; tokens: TokenUsage }
  /** A step completed earlier, not run again; `usage`: what it spent when it ran (absent in logs written before it was recorded). */
  | { type: 'step_skipped'; step: StepId; agent: string; usage?: TokenUsage }
  | {
      type: 'step_started';
      step: StepId;
      agent: string;
      /** 1-based, counted across resumes. */
      attempt: number;
      idempotency_key: string;
      /** Set when this attempt is an automatic retry: which one, of how many (the countdown's "retry 2/5"). */
      retry?: { n: number; max: number };
      /** Set when the pattern knows of more steps than the session said (routing, evaluator loops, workers, graph visits). */
      steps_total?: number;
      /**
       * Both sides of a step: the prompt its conversation starts from, as rendered — the agent's system
       * prompt and the step's input — redacted like every event. Absent for an approval step and in
       * logs written before it was recorded.
       */
      prompt?: StepPrompt;
    }
  /**
   * `cut`: the model's answer stopped at its output limit (CompletionResult.cut); absent when it finished, and in logs written before it was recorded.
   * `cost_usd`: what the call cost, priced when it was made (a model's from acode's prices; an agent CLI's as the CLI said it); absent without a price.
   */
  | { type: 'step_completed'; step: StepId; agent: string; attempt: number; idempotency_key: string; response: string; usage: TokenUsage; duration_ms: number; cut?: true; cost_usd?: number }
  /**
   * An agent CLI step's child process started (journaled before the CLI can do anything lasting): a
   * resume that finds this very process still running — same pid, same start time — ends its group
   * first. `resume_id`: the conversation it was told to continue.
   */
  | { type: 'agent_cli_started'; step: StepId; attempt: number; cli: 'claude' | 'codex'; pid: number; started: string; cwd: string; resume_id: string | null; session?: string; tree?: string }
  /**
   * The files an agent CLI step changed (its folder compared before and after the attempt), with
   * their content now: they join the files the session has seen, so a later resume notices an edit.
   */
  | { type: 'agent_cli_files'; step: StepId; attempt: number; files: { path: string; hash: string | null; blob: string | null }[] }
  /**
   * The conversation id the CLI's stream named, journaled as soon as it is seen, so that a crash mid-step
   * still knows it. `session_id` null: the CLI finished without naming one (`message` says what follows).
   */
  | { type: 'agent_cli_session'; step: StepId; attempt: number; cli: 'claude' | 'codex'; session_id: string | null; session?: string; message?: string }
  /** A step completed by another session, copied in by `acode fork`; its tokens were spent there. `cut` as on its step_completed. */
  | {
      type: 'step_reused';
      step: StepId;
      agent: string;
      response: string;
      from_session: string;
      cut?: true;
      /** Taken during the run by `fork --spec`: the step's rendered input, agent, model and tools were the source's (step-input-key.ts). */
      input_unchanged?: true;
    }
  /** `reuse_by_input`: `fork --spec`'s steps of the source that may be reused where their input is unchanged (a resume of the fork takes them up again). */
  | { type: 'session_forked'; from_session: string; steps_reused: number; reuse_by_input?: StepId[] }
  /** A resume raised limits of the spec the session runs (`--set`): a budget, a graph's max_iterations. */
  | { type: 'limits_raised'; changes: { key: string; from: number | null; to: number }[] }
  /** A budget's warn_threshold was reached: said once per session. */
  | { type: 'budget_warning'; budget: string; used: number; limit: number; message: string }
  | { type: 'resume_planned'; steps_skipped: number; in_progress: { step: StepId; attempt: number; action: string }[]; steps_remaining: number }
  /** `previous_heartbeat_at`: when the owner taken over from was last known alive (its lock's heartbeat): how long a step it was killed in had run. */
  | { type: 'lock_taken_over'; previous_pid: number; previous_host: string; why: string; previous_heartbeat_at?: string }
  | { type: 'tool_called'; step: StepId; attempt: number; call_id: string; name: string; args: Record<string, unknown> }
  /**
   * What a tool call answered: `output` is its start, for display; `output_blob` holds the whole
   * answer (JSON-encoded string) when it is longer, so a resume can give the model exactly the same.
   * Absent in logs written before it was recorded.
   */
  | { type: 'tool_result'; step: StepId; attempt: number; call_id: string; name: string; ok: boolean; output: string; output_blob?: string | null }
  /** What the session saw of a file; hash and blob are null when the file did not exist. */
  | { type: 'file_read'; step: StepId; call_id: string; path: string; hash: string | null; blob: string | null }
  /** Write-ahead: journaled (with a snapshot of the prior content) before the file is touched. */
  | ({ type: 'file_write_intended'; call_id: string } & PendingWrite)
  | { type: 'file_write_applied'; step: StepId; call_id: string; path: string; hash: string; blob: string; already: boolean }
  /** How resume settled a write that was under way when the session stopped. */
  | { type: 'file_write_recovered'; step: StepId; call_id: string; path: string; outcome: WriteRecovery; hash: string | null; blob: string | null }
  /** Write-ahead for a call with effects outside the journal: durable before the call runs; its tool_result ends it. */
  | ({ type: 'tool_effect_intended'; call_id: string } & PendingEffect)
  /** How resume settled a call cut off before its result was journaled. `output`: what the model is told of a call not run again. */
  | { type: 'tool_effect_recovered'; step: StepId; call_id: string; name: string; outcome: EffectRecovery; output?: string }
  /** The person chose to continue despite changed files: their current state becomes what the session has seen. */
  | { type: 'environment_accepted'; files: { path: string; hash: string | null; blob: string | null }[] }
  /** Written by acode before 0.2; replaced by resume_attempt. Kept so older logs replay. */
  | { type: 'step_retry_scheduled'; step: StepId; attempt: number; reason: StopReason; message: string; delay_ms: number }
  /** An automatic continuation: its context (why the step stopped, which try, when) and outcome. */
  | {
      type: 'resume_attempt';
      step: StepId;
      /** The automatic retry this is (1-based, in a row without a step completing), of at most max_attempts. */
      attempt: number;
      max_attempts: number;
      stop_reason: StopReason;
      retry_after_ms: number | null;
      strategy: 'same_session' | 'new_session' | 'none';
      message: string;
      /** What went wrong in a few words ("HTTP 429", "connection refused"); absent in logs before 0.3. */
      detail?: string;
      outcome: AttemptOutcome;
    }
  /**
   * The agent's conversation of a step, as a blob: saved when the model answers with tool calls,
   * before any tool runs (`usage`: that model call), and again once every result is in (usage 0).
   */
  | { type: 'conversation_saved'; step: StepId; attempt: number; blob: string; messages: number; usage: TokenUsage; cost_usd?: number }
  /**
   * A step's conversation outgrew the context: it continues in a fresh one seeded with a summary.
   * `compacted`: it was near the limit (context_policy.compaction), its older `dropped_messages`
   * summarized and the newest kept; `model`: the summary's model when not the agent's.
   */
  | { type: 'conversation_reset'; step: StepId; attempt: number; blob: string; summary_source: 'model' | 'truncation'; summary_chars: number; dropped_messages: number; usage: TokenUsage; cost_usd?: number; compacted?: true; model?: string }
  | { type: 'step_failed'; step: StepId; attempt: number; reason: StopReason; message: string; retryable: boolean }
  | { type: 'artifact_written'; path: string; bytes: number; sha256: string; /** The earlier session whose unchanged file this one replaced. */ replaced_session?: string }
  | { type: 'session_paused'; reason: StopReason; message: string; step: StepId | null }
  /** An approval step asks a person; the session is AWAITING_APPROVAL until they answer. */
  | { type: 'approval_requested'; step: StepId; attempt: number; prompt: string; context: string; default_response: string }
  | { type: 'approval_answered'; step: StepId; attempt: number; decision: ApprovalDecision; response: string }
  /** The person rejected an approval step: the session ends (fork it to try again). */
  | { type: 'session_cancelled'; reason: StopReason; message: string; step: StepId | null }
  /** `note`: what the pattern says of how it ended (an evaluator loop whose best draft was not accepted). */
  | { type: 'session_completed'; tokens: TokenUsage; note?: string }
  | { type: 'session_failed'; reason: StopReason; message: string; step: StepId | null };

/**
 * An event as recorded: ordered by (ts, event_id) for replay. `epoch` is the session-lock epoch of
 * the process that wrote it (absent in logs written before epochs: 0); the first event a lock
 * holder writes says in `based_on` which event its state was built from, so that events a
 * superseded holder appended after that point are fenced out (engine/epoch-fence.ts).
 */
export type EngineEvent = EngineEventBody & { event_id: number; ts: string; epoch?: number; based_on?: number };

/**
 * Model-call events carry `cost_usd` (what that call cost, priced when it was made, when its model
 * has a price): the log, not today's price table, is what `runtime.budgets.max_cost_usd` counts.
 */
export type PricedCall = Extract<EngineEventBody, { cost_usd?: number }>;

/**
 * The model call an event records, if it records one: every saved or restarted conversation and the
 * answer that completes a step each carry one call's tokens, so a step's are the sum of these.
 */
export function modelCall(event: EngineEventBody): { step: StepId; usage: TokenUsage } | undefined {
  return event.type === 'conversation_saved' || event.type === 'conversation_reset' || event.type === 'step_completed' ? { step: event.step, usage: event.usage } : undefined;
}

export type EngineEventType = EngineEvent['type'];
