import type { SessionStatus, TokenUsage } from '../../engine/events.js';
import { isLiveStatus } from '../summary-rows.js';
import type { RemoteConnection } from './remote-client.js';
import { judgeHolder } from './remote-lease.js';

/** One session as the team store holds it: its row, where it last ran, how many of its events are there. */
export interface RemoteSessionRow {
  session_id: string;
  name?: string;
  workflow_name: string;
  status: SessionStatus;
  pattern_type: string;
  created_at: string;
  updated_at: string;
  steps_done: number;
  steps_total: number;
  tokens: TokenUsage;
  host: string;
  events: number;
  /**
   * Running (or created) in the store, and nobody holds it there: its lease is gone, or silent
   * longer than resume.lock_timeout_seconds (by the server's clock), or names a pid of this host
   * that is gone — its process was killed, on this machine or another. Listed as a local killed
   * session is: `running (interrupted)`.
   */
  interrupted: boolean;
  /** The variables it ran with, as its stored record holds them (redacted like everything acode keeps). */
  variables: Record<string, unknown>;
}

interface Row {
  id: string;
  name: string | null;
  workflow: string;
  status: SessionStatus;
  pattern_type: string;
  created_at: Date;
  updated_at: Date;
  /** updated_at as the server writes it (microseconds kept): where the next page starts. */
  updated_key: string;
  steps_done: number;
  steps_total: number;
  tokens_input: string;
  tokens_output: string;
  host: string;
  events: string;
  variables: Record<string, unknown> | null;
  lease_host: string | null;
  lease_pid: number | null;
  lease_proc_start: string | null;
  lease_silent_s: number | null;
}

/** Rows a page of the listing reads: one round trip each, whatever the number of sessions in the store. */
export const remotePageSize = 200;

/**
 * The store's sessions (of `status`, if given), newest first, a page at a time: each page one
 * indexed range read after the last row of the one before (acode_sessions_recent, or
 * acode_sessions_status_recent with a status), never a read of every row; the event count is taken
 * for the page's rows alone. At most `limit` rows in all.
 */
export async function* remoteSessionPages(db: RemoteConnection, options: { status?: string; limit?: number; lockTimeoutMs: number }): AsyncGenerator<RemoteSessionRow[]> {
  let after: { key: string; id: string } | undefined;
  let left = options.limit ?? Number.POSITIVE_INFINITY;
  while (left > 0) {
    const size = Math.min(remotePageSize, left);
    const rows = await db.query<Row>(
      `SELECT s.id, s.name, s.workflow, s.status, s.pattern_type, s.created_at, s.updated_at, s.updated_at::text AS updated_key, s.steps_done, s.steps_total, s.tokens_input, s.tokens_output, s.host, s.record->'variables' AS variables,
         (SELECT count(*) FROM acode_events e WHERE e.session_id = s.id) AS events,
         l.host AS lease_host, l.pid AS lease_pid, l.proc_start AS lease_proc_start, extract(epoch FROM now() - l.heartbeat_at)::float8 AS lease_silent_s
       FROM (SELECT * FROM acode_sessions s
             WHERE ($1::text IS NULL OR s.status = $1) AND ($2::timestamptz IS NULL OR (s.updated_at, s.id) < ($2::timestamptz, $3::text))
             ORDER BY s.updated_at DESC, s.id DESC LIMIT $4) s
       LEFT JOIN acode_leases l ON l.session_id = s.id
       ORDER BY s.updated_at DESC, s.id DESC`,
      [options.status ?? null, after?.key ?? null, after?.id ?? null, size],
    );
    if (rows.length === 0) return;
    yield rows.map((row) => toSessionRow(row, options.lockTimeoutMs));
    left -= rows.length;
    if (rows.length < size) return;
    const last = rows.at(-1)!;
    after = { key: last.updated_key, id: last.id };
  }
}

/** Whether nobody holds a live session's lease in the store (judged as a resume judges it: silent past the timeout, or its pid here gone). */
function leaseLapsed(row: Row, lockTimeoutMs: number): boolean {
  if (row.lease_host === null || row.lease_pid === null || row.lease_silent_s === null) return true;
  const holder = { host: row.lease_host, pid: row.lease_pid, home: '', epoch: 0, token: '', proc_start: row.lease_proc_start, taken_at: '', heartbeat_at: '', silent_s: Number(row.lease_silent_s) };
  return judgeHolder(holder, lockTimeoutMs).kind === 'stale';
}

function toSessionRow(row: Row, lockTimeoutMs: number): RemoteSessionRow {
  return {
    session_id: row.id,
    ...(row.name === null ? {} : { name: row.name }),
    workflow_name: row.workflow,
    status: row.status,
    pattern_type: row.pattern_type,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    steps_done: row.steps_done,
    steps_total: row.steps_total,
    tokens: { input: Number(row.tokens_input), output: Number(row.tokens_output) },
    host: row.host,
    events: Number(row.events),
    interrupted: isLiveStatus(row.status) && leaseLapsed(row, lockTimeoutMs),
    variables: row.variables ?? {},
  };
}
