import type { SessionSummary } from './session-record.js';

/**
 * A cached summary row that looks like what acode writes, checked without a schema parse: the
 * index and its head are read on every listing of up to tens of thousands of rows.
 */
export function plausibleRow(row: SessionSummary | undefined, id: string): row is SessionSummary {
  return typeof row === 'object' && row !== null && row.session_id === id && typeof row.status === 'string' && typeof row.updated_at === 'string' && typeof row.tokens === 'object' && typeof row.variables === 'object';
}

/** A session a process may be driving right now (or was, when it died): its lock says which. */
export const isLiveStatus = (status: SessionSummary['status']) => status === 'running' || status === 'created';

/**
 * A session whose log may run ahead of its lazily written snapshot: one a process drives (or drove,
 * when it died), and one waiting for an answer in one parallel branch while the others run on.
 * Listings re-read these rows when the session's files change.
 */
export const mayRunAhead = (status: SessionSummary['status']) => isLiveStatus(status) || status === 'awaiting_approval';

/** Newest first, by the time of the last change. */
export const newestFirst = (a: SessionSummary, b: SessionSummary) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : 0);
