import type { BrowserRow } from './browser-rows.js';
import type { StopReason } from '../engine/events.js';
import type { SessionStepsView } from './step-view-store.js';
import { stopReasonText } from './stop-reason-text.js';

/**
 * Why a session listed in the browser cannot be resumed, in its own words: it completed, failed,
 * was cancelled, or its files are damaged — each with what can be done instead. Undefined when it can be.
 */
export function whyNotResumable(row: Pick<BrowserRow, 'session_id' | 'status' | 'stop_reason' | 'damaged' | 'resumable'>): string | undefined {
  if (row.resumable) return undefined;
  const id = row.session_id.slice(0, 8);
  const because = row.stop_reason ? ` (${stopReasonText(row.stop_reason as StopReason)})` : '';
  const fork = `'acode fork ${id}' starts a new session from its completed steps`;
  if (row.damaged !== null) return `session ${id} cannot be resumed: its files are damaged (${row.damaged}); 'acode sessions show ${id}' says what to do`;
  switch (row.status) {
    case 'completed':
      return `session ${id} completed: nothing is left to resume; ${fork} (--spec to run an edited spec)`;
    case 'failed':
      return `session ${id} failed${because}: a resume cannot continue a failed session; ${fork}`;
    case 'cancelled':
      return `session ${id} was cancelled${because}: a resume cannot continue it; ${fork}`;
    case 'created':
    case 'running':
    case 'awaiting_approval':
    case 'paused':
      return `session ${id} cannot be resumed now: another process is running it`;
  }
}

/**
 * What the step view's title says of a session that has ended, in its own words: "completed —
 * nothing to resume; f forks it from the selected step to run again", "cancelled at step 2
 * (approval rejected) — …". Undefined while it can still be resumed (or runs).
 */
export function endedNote(view: Pick<SessionStepsView, 'status' | 'stopReason' | 'steps'>): string | undefined {
  const fork = 'f forks it from the selected step';
  // The step it stopped at: the first that did not finish.
  const at = view.steps.find((viewed) => viewed.step.status !== 'done')?.ref;
  const because = view.stopReason ? ` (${stopReasonText(view.stopReason as StopReason)})` : '';
  if (view.status === 'completed') return `completed — nothing to resume; ${fork} to run again`;
  if (view.status === 'failed' || view.status === 'cancelled') return `${view.status}${at ? ` at step ${at}` : ''}${because} — a resume cannot continue it; ${fork}`;
  return undefined;
}
