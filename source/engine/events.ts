/**
 * Everything the engine reports, as one discriminated union: the same objects go to the event log,
 * the zustand store and the plain-line printer.
 */
export type SessionStatus = 'created' | 'running' | 'awaiting_approval' | 'paused' | 'completed' | 'failed' | 'cancelled';

export const terminalStatuses: readonly SessionStatus[] = ['completed', 'failed', 'cancelled'];

export interface TokenUsage {
  input: number;
  output: number;
}

/** Why a session stopped short of completion. */
export type StopReason = 'user_exit' | 'crash' | 'rate_limit' | 'context_exhausted' | 'provider_error' | 'budget_exceeded' | 'template_error' | 'artifact_error';

export type EngineEventBody =
  | { type: 'session_started'; workflow_name: string; steps_total: number; resumed: boolean; steps_skipped: number; next_step: number; tokens: TokenUsage }
  | { type: 'step_skipped'; step: number; agent: string }
  | { type: 'step_started'; step: number; agent: string; attempt: number; idempotency_key: string }
  | { type: 'step_completed'; step: number; agent: string; attempt: number; idempotency_key: string; response: string; usage: TokenUsage; duration_ms: number }
  /** A step completed by another session, copied in by `acode fork`; its tokens were spent there. */
  | { type: 'step_reused'; step: number; agent: string; response: string; from_session: string }
  | { type: 'session_forked'; from_session: string; steps_reused: number }
  | { type: 'resume_planned'; steps_skipped: number; in_progress: { step: number; attempt: number; action: string } | null; steps_remaining: number }
  | { type: 'lock_taken_over'; previous_pid: number; previous_host: string; why: string }
  | { type: 'step_retry_scheduled'; step: number; attempt: number; reason: StopReason; message: string; delay_ms: number }
  | { type: 'step_failed'; step: number; attempt: number; reason: StopReason; message: string; retryable: boolean }
  | { type: 'artifact_written'; path: string; bytes: number; sha256: string }
  | { type: 'session_paused'; reason: StopReason; message: string; step: number | null }
  | { type: 'session_completed'; tokens: TokenUsage }
  | { type: 'session_failed'; reason: StopReason; message: string; step: number | null };

/** An event as recorded: ordered by (ts, event_id) for replay. */
export type EngineEvent = EngineEventBody & { event_id: number; ts: string };

export type EngineEventType = EngineEvent['type'];
