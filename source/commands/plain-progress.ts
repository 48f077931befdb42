import type { EngineEventBody } from '../engine/events.js';

/** One line per engine event, for pipes and CI: no cursor movement, no colour unless asked. */
export function plainLine(event: EngineEventBody, stepsTotal: number, agents: readonly string[]): string | undefined {
  const step = (index: number) => `step ${index + 1}/${stepsTotal} ${agents[index] ?? ''}`.trimEnd();
  switch (event.type) {
    case 'session_started':
      return event.resumed
        ? `resuming: ${event.steps_skipped} skipped (completed earlier), ${stepsTotal - event.steps_skipped} remaining`
        : `started: ${stepsTotal} steps`;
    case 'step_skipped':
      return undefined; // counted in the session_started line; thousands of lines would drown the rest
    case 'step_started':
      return `▶ ${step(event.step)}${event.attempt > 1 ? ` (attempt ${event.attempt})` : ''}`;
    case 'step_completed':
      return `✓ ${step(event.step)} ${(event.duration_ms / 1000).toFixed(1)}s · ${event.usage.input} in / ${event.usage.output} out`;
    case 'step_retry_scheduled':
      return `◷ ${step(event.step)}: ${event.reason.replace('_', ' ')} (${event.message}); retrying in ${Math.ceil(event.delay_ms / 1000)} s`;
    case 'step_failed':
      return `✗ ${step(event.step)}: ${event.message}`;
    case 'artifact_written':
      return `wrote ${event.path} (${event.bytes} bytes)`;
    case 'session_paused':
      return `⏸ paused: ${event.message}`;
    case 'session_completed':
      return undefined; // the closing summary says it, with counts
    case 'session_failed':
      return `✗ failed: ${event.message}`;
    case 'lock_taken_over':
      return `took over the session lock: ${event.why}`;
    case 'resume_planned':
    case 'step_reused':
    case 'session_forked':
      return undefined; // the plan is printed before the run; reused steps are written by fork
  }
}
