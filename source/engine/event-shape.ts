import type { EngineEventType } from './events.js';

/** What a field of an event must hold: a JSON type, a step id or null, token usage. */
type Kind = 'string' | 'number' | 'boolean' | 'object' | 'array' | 'usage' | 'string|null' | 'number|null';

/**
 * The fields every event of a type carries (optional ones are left out), as the log is read
 * (after event-upgrade.ts). A line that parses but lacks one, or holds the wrong type, or names a
 * type acode does not know, would be acted on as if it were whole: a completed step without its
 * response crashed `sessions show` and resume; a renamed step_completed was passed over, and the
 * resume paid for that step's model call again.
 */
const shapes: Record<EngineEventType, Record<string, Kind>> = {
  session_started: { workflow_name: 'string', steps_total: 'number', resumed: 'boolean', steps_skipped: 'number', tokens: 'usage' },
  step_skipped: { step: 'string', agent: 'string' },
  step_started: { step: 'string', agent: 'string', attempt: 'number', idempotency_key: 'string' },
  step_retry_scheduled: { step: 'string', attempt: 'number', reason: 'string', message: 'string', delay_ms: 'number' },
  resume_attempt: { step: 'string', attempt: 'number', max_attempts: 'number', stop_reason: 'string', retry_after_ms: 'number|null', strategy: 'string', message: 'string', outcome: 'object' },
  conversation_saved: { step: 'string', attempt: 'number', blob: 'string', messages: 'number', usage: 'usage' },
  conversation_reset: { step: 'string', attempt: 'number', blob: 'string', summary_source: 'string', summary_chars: 'number', dropped_messages: 'number', usage: 'usage' },
  step_completed: { step: 'string', agent: 'string', attempt: 'number', idempotency_key: 'string', response: 'string', usage: 'usage', duration_ms: 'number' },
  agent_cli_started: { step: 'string', attempt: 'number', cli: 'string', pid: 'number', started: 'string', cwd: 'string', resume_id: 'string|null' },
  agent_cli_files: { step: 'string', attempt: 'number', files: 'array' },
  agent_cli_session: { step: 'string', attempt: 'number', cli: 'string', session_id: 'string|null' },
  step_reused: { step: 'string', agent: 'string', response: 'string', from_session: 'string' },
  session_forked: { from_session: 'string', steps_reused: 'number' },
  resume_planned: { steps_skipped: 'number', in_progress: 'array', steps_remaining: 'number' },
  lock_taken_over: { previous_pid: 'number', previous_host: 'string', why: 'string' },
  tool_called: { step: 'string', attempt: 'number', call_id: 'string', name: 'string', args: 'object' },
  tool_result: { step: 'string', attempt: 'number', call_id: 'string', name: 'string', ok: 'boolean', output: 'string' },
  file_read: { step: 'string', call_id: 'string', path: 'string', hash: 'string|null', blob: 'string|null' },
  file_write_intended: { call_id: 'string', step: 'string', attempt: 'number', path: 'string', before_hash: 'string|null', before_blob: 'string|null', after_hash: 'string', after_blob: 'string', bytes: 'number' },
  file_write_applied: { step: 'string', call_id: 'string', path: 'string', hash: 'string', blob: 'string', already: 'boolean' },
  file_write_recovered: { step: 'string', call_id: 'string', path: 'string', outcome: 'string', hash: 'string|null', blob: 'string|null' },
  tool_effect_intended: { call_id: 'string', step: 'string', attempt: 'number', name: 'string', what: 'string' },
  tool_effect_recovered: { step: 'string', call_id: 'string', name: 'string', outcome: 'string' },
  environment_accepted: { files: 'array' },
  step_failed: { step: 'string', attempt: 'number', reason: 'string', message: 'string', retryable: 'boolean' },
  artifact_written: { path: 'string', bytes: 'number', sha256: 'string' },
  session_paused: { reason: 'string', message: 'string', step: 'string|null' },
  approval_requested: { step: 'string', attempt: 'number', prompt: 'string', context: 'string', default_response: 'string' },
  approval_answered: { step: 'string', attempt: 'number', decision: 'string', response: 'string' },
  session_cancelled: { reason: 'string', message: 'string', step: 'string|null' },
  session_completed: { tokens: 'usage' },
  limits_raised: { changes: 'array' },
  budget_warning: { budget: 'string', used: 'number', limit: 'number', message: 'string' },
  session_failed: { reason: 'string', message: 'string', step: 'string|null' },
};

/** Each type's fields as a list, made once: a resume reads every event of a long log through this. */
const fieldLists = new Map(Object.entries(shapes).map(([type, shape]) => [type, Object.entries(shape) as [string, Kind][]]));

function holds(value: unknown, kind: Kind): boolean {
  switch (kind) {
    case 'usage':
      return typeof value === 'object' && value !== null && typeof (value as { input?: unknown }).input === 'number' && typeof (value as { output?: unknown }).output === 'number';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'string|null':
      return value === null || typeof value === 'string';
    case 'number|null':
      return value === null || typeof value === 'number';
    case 'string':
    case 'number':
    case 'boolean':
      return typeof value === kind;
  }
}

/** What is wrong with a parsed log line as an event ("step_completed has no response"), or undefined when it has the shape it names. */
export function eventShapeProblem(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'it is not an event object';
  const event = raw as Record<string, unknown>;
  if (typeof event.event_id !== 'number' || typeof event.ts !== 'string') return 'it has no event_id or ts';
  const fields = typeof event.type === 'string' ? fieldLists.get(event.type) : undefined;
  if (!fields) return `its type ${JSON.stringify(event.type)} is not one acode knows (a damaged line, or a log written by a newer acode)`;
  for (const [field, kind] of fields) {
    if (!(field in event)) return `${event.type} has no ${field}`;
    if (!holds(event[field], kind)) return `${event.type}'s ${field} is not ${kind === 'usage' ? 'token usage ({input, output})' : `a ${kind.replace('|', ' or ')}`}`;
  }
  return undefined;
}
