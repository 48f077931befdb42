import type { SessionStatus, TokenUsage } from '../../engine/events.js';
import type { RemoteConnection } from './remote-client.js';

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
}

/** Rows a page of the listing reads: one round trip each, whatever the number of sessions in the store. */
export const remotePageSize = 200;

/**
 * The store's sessions (of `status`, if given), newest first, a page at a time: each page one
 * indexed range read after the last row of the one before (acode_sessions_recent, or
 * acode_sessions_status_recent with a status), never a read of every row; the event count is taken
 * for the page's rows alone. At most `limit` rows in all.
 */
export async function* remoteSessionPages(db: RemoteConnection, options: { status?: string; limit?: number } = {}): AsyncGenerator<RemoteSessionRow[]> {
  let after: { key: string; id: string } | undefined;
  let left = options.limit ?? Number.POSITIVE_INFINITY;
  while (left > 0) {
    const size = Math.min(remotePageSize, left);
    const rows = await db.query<Row>(
      `SELECT s.id, s.name, s.workflow, s.status, s.pattern_type, s.created_at, s.updated_at, s.updated_at::text AS updated_key, s.steps_done, s.steps_total, s.tokens_input, s.tokens_output, s.host, s.record->'variables' AS variables,
         (SELECT count(*) FROM acode_events e WHERE e.session_id = s.id) AS events
       FROM (SELECT * FROM acode_sessions s
             WHERE ($1::text IS NULL OR s.status = $1) AND ($2::timestamptz IS NULL OR (s.updated_at, s.id) < ($2::timestamptz, $3::text))
             ORDER BY s.updated_at DESC, s.id DESC LIMIT $4) s
       ORDER BY s.updated_at DESC, s.id DESC`,
      [options.status ?? null, after?.key ?? null, after?.id ?? null, size],
    );
    if (rows.length === 0) return;
    yield rows.map(toSessionRow);
    left -= rows.length;
    if (rows.length < size) return;
    const last = rows.at(-1)!;
    after = { key: last.updated_key, id: last.id };
  }
}

function toSessionRow(row: Row): RemoteSessionRow {
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
    variables: row.variables ?? {},
  };
}
