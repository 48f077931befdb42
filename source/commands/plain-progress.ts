import type { EngineEventBody, TokenUsage } from '../engine/events.js';
import { openCommand } from '../engine/agent-cli.js';
import type { StepId } from '../engine/step-id.js';
import { toolTarget } from '../engine/tools/tool-target.js';
import { stopReasonText } from '../state/stop-reason-text.js';
import { cutText } from '../state/step-results.js';
import { headline } from '../session/status-words.js';
import { plural } from '../human-units.js';

const recoveryText = {
  applied: 'already applied, marked done',
  not_applied: 'never applied, nothing to undo',
  rolled_back: 'torn, rolled back from its snapshot',
  kept: 'torn, left for the retry to overwrite',
} as const;

/** Without a TTY the countdown is one line per attempt. */
function attemptLine(event: Extract<EngineEventBody, { type: 'resume_attempt' }>, step: string): string | undefined {
  const { outcome } = event;
  if (outcome.kind === 'success') return `  ✓ ${step}: recovered after ${event.attempt} automatic ${event.attempt === 1 ? 'retry' : 'retries'}`;
  if (outcome.kind !== 'delayed') return undefined; // the pause or failure line follows
  const why = `${stopReasonText(event.stop_reason)} (${event.message})`;
  if (event.strategy === 'new_session') return `◷ ${step}: ${why}; continuing in a new conversation, retry ${event.attempt}/${event.max_attempts}`;
  const seconds = Math.max(0, Math.ceil((Date.parse(outcome.next_attempt_at) - Date.now()) / 1000));
  return `◷ ${step}: ${why}; retry ${event.attempt}/${event.max_attempts} in ${seconds} s`;
}

/**
 * A fork's first line, where a resume's says "resuming": what the fork does — "fork of 3f2a…: 2 steps
 * reused, 1 to run", or with --spec "fork of 3f2a… running edited.yaml: 3 steps, each reused where its input is unchanged".
 * `stepsTotal` is the session_started event's: the steps known once the reused ones are in (a pattern
 * that decides its steps as it runs knows more of them then than a fresh run does — a route's steps
 * follow its router), so the count to run is never negative.
 */
export function forkStartLine(from: string, edited: string | undefined, stepsSkipped: number, stepsTotal: number): string {
  if (edited !== undefined) return `fork of ${from} running ${edited}: ${plural(stepsTotal, 'step')}, each reused where its input is unchanged`;
  return `fork of ${from}: ${plural(stepsSkipped, 'step')} reused, ${Math.max(0, stepsTotal - stepsSkipped)} to run`;
}

/**
 * One line per engine event, for pipes and CI: no cursor movement, no colour unless asked.
 * `spent`: a step's tokens over all its model calls (the run's progress), for its ✓ line; `detail`: what
 * the pattern read of a finished step's answer ("chose technical (not taken: faq)", "score 72 of 85").
 */
export function plainLine(event: EngineEventBody, stepsTotal: number, step: (id: StepId) => string, spent?: (id: StepId) => TokenUsage | undefined, detail?: (id: StepId) => string | undefined): string | undefined {
  switch (event.type) {
    case 'session_started':
      return event.resumed
        ? `resuming: ${event.steps_skipped} skipped (completed earlier), ${stepsTotal - event.steps_skipped} remaining`
        : `started: ${plural(stepsTotal, 'step')}`;
    case 'step_skipped':
      return undefined; // counted in the session_started line; thousands of lines would drown the rest
    case 'step_started':
      // An automatic retry is numbered as its countdown was ("retry 5/5"), never as "attempt 6" after it.
      return `▶ ${step(event.step)}${event.retry ? ` (retry ${event.retry.n}/${event.retry.max})` : event.attempt > 1 ? ` (attempt ${event.attempt})` : ''}`;
    case 'step_completed': {
      const usage = spent?.(event.step) ?? event.usage;
      const read = detail?.(event.step);
      // An approval asked a person, not a model: no tokens to count.
      const tokens = event.agent === 'approval' && usage.input + usage.output === 0 ? '' : ` · ${usage.input} in / ${usage.output} out`;
      return `✓ ${step(event.step)} ${(event.duration_ms / 1000).toFixed(1)}s${tokens}${event.cut ? ` · ${cutText}` : ''}${read ? ` · ${read}` : ''}`;
    }
    case 'step_retry_scheduled':
      return `◷ ${step(event.step)}: ${stopReasonText(event.reason)} (${event.message}); retrying in ${Math.ceil(event.delay_ms / 1000)} s`;
    case 'step_failed':
      return `✗ ${step(event.step)}: ${event.message}`;
    case 'resume_attempt':
      return attemptLine(event, step(event.step));
    case 'conversation_reset':
      if (event.compacted) return `  ↻ ${step(event.step)}: conversation compacted before the context limit: ${event.dropped_messages} older message${event.dropped_messages === 1 ? '' : 's'} summarized ${event.summary_source === 'model' ? 'by the model' : '(by truncation: the model could not summarize)'}`;
      return `  ↻ ${step(event.step)}: new conversation, seeded with a summary ${event.summary_source === 'model' ? 'written by the model' : '(the latest part of the old one: the model could not summarize)'}`;
    case 'approval_requested':
      return `◆ ${step(event.step)}: ${event.prompt}${event.context ? `\n${event.context}` : ''}`;
    case 'approval_answered':
      // Named: with branches running at once, the line above may be another step's.
      return `  ${event.decision === 'rejected' ? '✗' : '✓'} ${step(event.step)}: ${event.decision}${event.response && event.decision === 'edited' ? `: ${event.response}` : ''}`;
    case 'session_cancelled':
      return `${headline('cancelled')}: ${event.message}`;
    case 'conversation_saved':
      return undefined; // a bookkeeping event: the tool lines show the rounds
    case 'artifact_written':
      return `wrote ${event.path} (${event.bytes} bytes)${event.replaced_session ? `, replacing session ${event.replaced_session}'s, unchanged since it wrote it` : ''}`;
    case 'session_paused':
      return `${headline('paused')}: ${event.message}`;
    case 'budget_warning':
      return `warning: ${event.message}`;
    case 'limits_raised':
      return `raised ${event.changes.map((c) => `${c.key} ${c.from ?? 'unset'} → ${c.to}`).join(', ')}`;
    case 'session_completed':
      // The closing summary says it, with counts; what the pattern says of how it ended goes before.
      return event.note ? `note: ${event.note}` : undefined;
    case 'session_failed':
      return `${headline('failed')}: ${event.message}`;
    case 'lock_taken_over':
      return `took over the session lock: ${event.why}`;
    case 'tool_called':
      return `  → ${step(event.step)}: ${event.name}${toolTarget(event.args)}`;
    case 'tool_result':
      return event.ok ? undefined : `  ✗ ${step(event.step)}: ${event.name}: ${event.output.split('\n')[0]}`;
    case 'file_write_recovered':
      return `  write to ${event.path} from ${step(event.step)}: ${recoveryText[event.outcome]}`;
    case 'agent_cli_started':
      return `  ${event.cli} started (pid ${event.pid})${event.resume_id ? `, continuing conversation ${event.resume_id}` : ''}`;
    case 'agent_cli_files':
      return `  ${step(event.step)} changed ${event.files.length === 1 ? '1 file' : `${event.files.length} files`}: ${event.files.slice(0, 5).map((file) => file.path).join(', ')}${event.files.length > 5 ? ', …' : ''}`;
    case 'agent_cli_session':
      return event.session_id ? `  ${event.cli} conversation ${event.session_id} (open it: ${openCommand(event.cli, event.session_id)})` : `warning: ${event.message ?? `${event.cli} named no session id`}`;
    case 'tool_effect_recovered':
      return `  ${event.name} call in ${step(event.step)}, cut off when the session stopped: ${event.outcome === 'run_again' ? 'run again' : 'taken as not done, not run again'}`;
    case 'environment_accepted':
      return `continuing with ${event.files.length} changed file${event.files.length === 1 ? '' : 's'} accepted`;
    case 'step_reused':
      // Those `fork` copies before the run are said by its first line; one taken during the run, here.
      return event.input_unchanged ? `↷ ${step(event.step)} reused from session ${event.from_session}: its input is unchanged` : undefined;
    case 'resume_planned':
    case 'session_forked':
    case 'file_read':
    case 'file_write_intended':
    case 'file_write_applied':
    case 'tool_effect_intended':
      return undefined; // the plan is printed before the run; reused steps are written by fork; file effects show as tool calls
  }
}
