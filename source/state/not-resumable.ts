import type { BrowserRow } from './browser-rows.js';

/**
 * Why a session listed in the browser cannot be resumed, in its own words: it completed, failed,
 * was cancelled, or its files are damaged — each with what can be done instead. Undefined when it can be.
 */
export function whyNotResumable(row: Pick<BrowserRow, 'session_id' | 'status' | 'stop_reason' | 'damaged' | 'resumable'>): string | undefined {
  if (row.resumable) return undefined;
  const id = row.session_id.slice(0, 8);
  const because = row.stop_reason ? ` (${row.stop_reason})` : '';
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
