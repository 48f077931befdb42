import { readFileSync } from 'node:fs';
import { sha256 } from '../../engine/blob-store.js';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { epochOf } from '../../engine/epoch-fence.js';
import type { EngineEvent } from '../../engine/events.js';
import type { SessionSummary } from '../session-record.js';
import type { RemoteConnection } from './remote-client.js';
import { blobsOf, readOutbox } from './session-outbox.js';
import { writeCursorAsync, type SyncCursor } from './sync-cursor.js';

/** Events per INSERT: one round trip and one commit each. */
export const eventBatchSize = 500;

/** What one session's push did. */
export interface SessionPush {
  session_id: string;
  /** Events the store did not have before (a re-push of ones it had counts nothing). */
  events_inserted: number;
  /** Events sent in this push (new or already there). */
  events_sent: number;
  blobs_inserted: number;
  /** Blobs events name that are not in the session's folder (nothing to send). */
  blobs_missing: number;
  /** Events still pending after it (held back: see SessionOutbox.waiting). */
  pending_events: number;
  waiting?: string;
}

/** The session's record as stored (redacted), without the checkpoint: the events rebuild it wherever they are pulled. */
function storedRecord(dir: string): Record<string, unknown> {
  const { checkpoint: _checkpoint, ...record } = JSON.parse(readFileSync(join(dir, 'session.json'), 'utf8')) as Record<string, unknown>;
  return record;
}

/** The spec snapshots (spec.yaml as written, spec.json as validated) into acode_blobs: their hashes, for the session's row. */
async function pushSpecs(db: RemoteConnection, dir: string): Promise<{ yaml: string; json: string }> {
  const files = ['spec.yaml', 'spec.json'].map((name) => readFileSync(join(dir, name)));
  const hashes = files.map((bytes) => sha256(bytes));
  const present = new Set((await db.query<{ hash: string }>('SELECT hash FROM acode_blobs WHERE hash = ANY($1::text[])', [hashes])).map((row) => row.hash));
  for (const [i, bytes] of files.entries()) {
    if (!present.has(hashes[i]!)) await db.execute('INSERT INTO acode_blobs (hash, bytes, size) VALUES ($1, $2, $3) ON CONFLICT (hash) DO NOTHING', [hashes[i], bytes, bytes.length]);
  }
  return { yaml: hashes[0]!, json: hashes[1]! };
}

/** The session's row: its summary, and what another machine needs to resume it (record, spec snapshots). */
export async function upsertSession(db: RemoteConnection, dir: string, row: SessionSummary): Promise<void> {
  const specs = await pushSpecs(db, dir);
  await db.execute(
    `INSERT INTO acode_sessions (id, name, workflow, status, pattern_type, steps_done, steps_total, tokens_input, tokens_output, created_at, host, updated_at, record, spec_yaml_blob, spec_json_blob)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
     ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, workflow = EXCLUDED.workflow, status = EXCLUDED.status, pattern_type = EXCLUDED.pattern_type,
       steps_done = EXCLUDED.steps_done, steps_total = EXCLUDED.steps_total, tokens_input = EXCLUDED.tokens_input, tokens_output = EXCLUDED.tokens_output,
       host = EXCLUDED.host, updated_at = EXCLUDED.updated_at, synced_at = now(),
       record = EXCLUDED.record, spec_yaml_blob = EXCLUDED.spec_yaml_blob, spec_json_blob = EXCLUDED.spec_json_blob
     WHERE acode_sessions.updated_at <= EXCLUDED.updated_at OR acode_sessions.record IS NULL`,
    [row.session_id, row.name ?? null, row.workflow_name, row.status, row.pattern_type, row.steps_done, row.steps_total, row.tokens.input, row.tokens.output, row.created_at, hostname(), row.updated_at, JSON.stringify(storedRecord(dir)), specs.yaml, specs.json],
  );
}

/** Sends the blobs `events` name that the store lacks; before the events, so no stored event names a blob the store has not got. */
async function pushBlobs(db: RemoteConnection, dir: string, events: readonly EngineEvent[]): Promise<{ inserted: number; missing: number }> {
  const named = [...new Set(events.flatMap(blobsOf))];
  if (named.length === 0) return { inserted: 0, missing: 0 };
  const present = new Set((await db.query<{ hash: string }>('SELECT hash FROM acode_blobs WHERE hash = ANY($1::text[])', [named])).map((row) => row.hash));
  let inserted = 0;
  let missing = 0;
  for (const hash of named) {
    if (present.has(hash)) continue;
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(dir, 'blobs', hash));
    } catch {
      missing++;
      continue;
    }
    inserted += await db.execute('INSERT INTO acode_blobs (hash, bytes, size) VALUES ($1, $2, $3) ON CONFLICT (hash) DO NOTHING', [hash, bytes, bytes.length]);
  }
  return { inserted, missing };
}

/**
 * PostgreSQL's jsonb holds no U+0000 (22P05): the store's copy has U+FFFD in its place, the local
 * log keeps it. JSON writes U+0000 as \u0000: only an event whose text holds that is written again,
 * string by string (a replacer called for every value made this the push's largest cost).
 */
const jsonbText = (event: EngineEvent) => {
  const text = JSON.stringify(event);
  return text.includes('\\u0000') ? JSON.stringify(event, (_key, value: unknown) => (typeof value === 'string' && value.includes('\0') ? value.replaceAll('\0', '\uFFFD') : value)) : text;
};

/** One batch in one statement (its own transaction): every row new or already there, never twice. */
async function insertEvents(db: RemoteConnection, sessionId: string, batch: readonly EngineEvent[]): Promise<number> {
  return db.execute(
    `INSERT INTO acode_events (session_id, event_id, epoch, ts, type, event)
     SELECT $1, e.event_id, e.epoch, e.ts, e.type, e.event
     FROM unnest($2::integer[], $3::integer[], $4::timestamptz[], $5::text[], $6::jsonb[]) AS e (event_id, epoch, ts, type, event)
     ORDER BY e.ts, e.event_id
     ON CONFLICT (session_id, event_id) DO NOTHING`,
    [sessionId, batch.map((e) => e.event_id), batch.map(epochOf), batch.map((e) => e.ts), batch.map((e) => e.type), batch.map(jsonbText)],
  );
}

/** Where the cursor had read to, kept as it was (with its epoch, when it has one). */
const keptRead = (cursor: SyncCursor) => ({ log_bytes: cursor.log_bytes, ...(cursor.epoch === undefined ? {} : { epoch: cursor.epoch }) });

/**
 * Pushes one session: its row, then its pending events batch by batch in (ts, event_id) order,
 * each batch's blobs before it, and after each batch the cursor moved past every event known to
 * be stored. Killed at any instant, the next push sends again what the cursor does not cover; the
 * store keeps each event once (its key is (session_id, event_id)).
 */
export async function pushSession(db: RemoteConnection, dir: string, row: SessionSummary, remote: string): Promise<SessionPush> {
  const outbox = readOutbox(dir, remote);
  const result: SessionPush = { session_id: row.session_id, events_inserted: 0, events_sent: 0, blobs_inserted: 0, blobs_missing: 0, pending_events: outbox.pendingCount, ...(outbox.waiting ? { waiting: outbox.waiting } : {}) };
  if (outbox.pending.length === 0 && outbox.waiting === undefined && outbox.logBytes === outbox.cursor.log_bytes && outbox.cursor.with_record) return result;
  await upsertSession(db, dir, row);
  // The cursor moves over the ids in order: an id is passed once it and every kept id below it are stored.
  const ids = outbox.pending.map((event) => event.event_id).sort((a, b) => a - b);
  const stored = new Set<number>();
  let next = 0;
  let cursorId = outbox.cursor.event_id;
  for (let start = 0; start < outbox.pending.length; start += eventBatchSize) {
    const batch = outbox.pending.slice(start, start + eventBatchSize);
    const blobs = await pushBlobs(db, dir, batch);
    result.blobs_inserted += blobs.inserted;
    result.blobs_missing += blobs.missing;
    result.events_inserted += await insertEvents(db, row.session_id, batch);
    result.events_sent += batch.length;
    result.pending_events -= batch.length;
    for (const event of batch) stored.add(event.event_id);
    while (next < ids.length && stored.has(ids[next]!)) cursorId = ids[next++]!;
    const whole = next === ids.length && outbox.waiting === undefined;
    await writeCursorAsync(dir, row.session_id, { remote, event_id: cursorId, ...(whole ? { log_bytes: outbox.logBytes, epoch: outbox.epoch } : keptRead(outbox.cursor)), with_record: true });
  }
  if (outbox.pending.length === 0) await writeCursorAsync(dir, row.session_id, { remote, event_id: cursorId, ...(outbox.waiting === undefined ? { log_bytes: outbox.logBytes, epoch: outbox.epoch } : keptRead(outbox.cursor)), with_record: true });
  return result;
}
