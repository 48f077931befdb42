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
}

interface Row {
  id: string;
  name: string | null;
  workflow: string;
  status: SessionStatus;
  pattern_type: string;
  created_at: Date;
  updated_at: Date;
  steps_done: number;
  steps_total: number;
  tokens_input: string;
  tokens_output: string;
  host: string;
  events: string;
}

/** Every session in the store (of `status`, if given), newest first. */
export async function listRemoteSessions(db: RemoteConnection, status?: string): Promise<RemoteSessionRow[]> {
  const rows = await db.query<Row>(
    `SELECT s.id, s.name, s.workflow, s.status, s.pattern_type, s.created_at, s.updated_at, s.steps_done, s.steps_total, s.tokens_input, s.tokens_output, s.host,
       (SELECT count(*) FROM acode_events e WHERE e.session_id = s.id) AS events
     FROM acode_sessions s WHERE $1::text IS NULL OR s.status = $1 ORDER BY s.updated_at DESC, s.id`,
    [status ?? null],
  );
  return rows.map((row) => ({
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
  }));
}
