import { sha256 } from '../../engine/blob-store.js';
import { highestEpoch } from '../../engine/epoch-fence.js';
import { eventShapeProblem } from '../../engine/event-shape.js';
import { upgradeEvent } from '../../engine/event-upgrade.js';
import type { EngineEvent } from '../../engine/events.js';
import { replayEvents, toCheckpoint } from '../../engine/session-progress.js';
import { AcodeError, ExitCode } from '../../errors/acode-error.js';
import { specSchema } from '../../spec/schema.js';
import { sessionRecordSchema, type SessionRecord } from '../session-record.js';
import type { RemoteConnection } from './remote-client.js';
import { relocateEvent, relocateRecord, type Relocation } from './relocation.js';
import { blobsOf } from './session-outbox.js';

/** A session of the team store as this machine will keep it: every file of its folder, checked. */
export interface PulledSession {
  record: SessionRecord;
  specYaml: Buffer;
  specJson: Buffer;
  /** Its events in id order (the store keeps the fenced stream), their paths where they are here. */
  events: EngineEvent[];
  /** The snapshots its events name that the store holds, each checked against its name. */
  blobs: Map<string, Buffer>;
  /** The host that last pushed it. */
  host: string;
  /** The highest epoch of its events: this machine's epoch mark starts there. */
  epoch: number;
}

/** The store's session given by id, unique prefix (≥ 4 characters) or name; undefined when it has none. */
export async function findRemoteSession(db: RemoteConnection, idOrPrefix: string): Promise<{ id: string; host: string } | undefined> {
  const rows = await db.query<{ id: string; host: string }>(
    `SELECT id, host FROM acode_sessions WHERE id = $1 OR name = $1 OR (length($1) >= 4 AND $1 ~ '^[0-9a-f]+$' AND id LIKE $1 || '%') ORDER BY (id = $1) DESC, (name = $1) DESC LIMIT 2`,
    [idOrPrefix],
  );
  if (rows.length === 0) return undefined;
  if (rows.length > 1 && rows[0]!.id !== idOrPrefix) {
    throw new AcodeError(`'${idOrPrefix}' matches more than one session of the team store (${rows.map((row) => row.id).join(', ')}…); give more characters`, ExitCode.usage);
  }
  return rows[0];
}

interface SessionRow {
  host: string;
  steps_total: number;
  record: Record<string, unknown> | null;
  spec_yaml_blob: string | null;
  spec_json_blob: string | null;
}

/**
 * Reads one session from the store and checks it as local files are checked: each event as a log
 * line is (a whole event of a known type), each blob against its sha256, the record against the
 * session format, the spec against the spec schema. Anything else is a refusal saying which row,
 * before anything is written here. `placeIn` chooses the folder it runs in on this machine, given
 * the one it ran in; the paths of its events and record move there.
 */
export async function fetchSession(db: RemoteConnection, shown: string, id: string, placeIn: (ranIn: string) => string): Promise<PulledSession> {
  const refuse = (what: string) =>
    new AcodeError(`session ${id} in the team store ${shown} cannot be pulled: ${what}; nothing was written here. It was written there by hand or by another program: fix or delete that row, or resume the session on the machine that ran it`, ExitCode.failure, 'ACODE-RESUME-005');
  const [row] = await db.query<SessionRow>('SELECT host, steps_total, record, spec_yaml_blob, spec_json_blob FROM acode_sessions WHERE id = $1', [id]);
  if (!row) throw refuse('it is no longer there');
  if (!row.record || !row.spec_yaml_blob || !row.spec_json_blob) {
    throw new AcodeError(
      `session ${id} cannot be pulled from the team store ${shown}: it was pushed without its record and spec (by an acode of schema 2 or older); run 'acode sync' on ${row.host} with this version, then resume here`,
      ExitCode.failure,
      'ACODE-RESUME-005',
    );
  }

  const rows = await db.query<{ event_id: number; event: string }>('SELECT event_id, event::text AS event FROM acode_events WHERE session_id = $1 ORDER BY event_id', [id]);
  const raw: EngineEvent[] = [];
  for (const line of rows) {
    let event: EngineEvent;
    try {
      event = upgradeEvent(JSON.parse(line.event) as EngineEvent);
    } catch {
      throw refuse(`its event ${line.event_id} is not an event`);
    }
    const problem = typeof event !== 'object' || event === null || Array.isArray(event) ? 'not a JSON object' : eventShapeProblem(event);
    if (problem) throw refuse(`its event ${line.event_id} is not a whole event: ${problem}`);
    if (event.event_id !== line.event_id) throw refuse(`its event ${line.event_id} says it is event ${String(event.event_id)}`);
    raw.push(event);
  }

  const named = [...new Set([row.spec_yaml_blob, row.spec_json_blob, ...raw.flatMap(blobsOf)])];
  const blobs = new Map<string, Buffer>();
  for (const blob of await db.query<{ hash: string; bytes: Buffer }>('SELECT hash, bytes FROM acode_blobs WHERE hash = ANY($1::text[])', [named])) {
    if (sha256(blob.bytes) !== blob.hash) throw refuse(`its snapshot ${blob.hash} is damaged (its bytes no longer hash to its name)`);
    blobs.set(blob.hash, blob.bytes);
  }
  const specYaml = blobs.get(row.spec_yaml_blob);
  const specJson = blobs.get(row.spec_json_blob);
  if (!specYaml || !specJson) throw refuse('its spec snapshot is missing from acode_blobs');
  blobs.delete(row.spec_yaml_blob);
  blobs.delete(row.spec_json_blob);
  let spec: unknown;
  try {
    spec = JSON.parse(specJson.toString('utf8'));
  } catch {
    spec = undefined;
  }
  const parsedSpec = specSchema.safeParse(spec);
  if (!parsedSpec.success) throw refuse(`its spec snapshot is not a valid spec (${parsedSpec.error.issues[0]?.message})`);

  const stored = row.record;
  const ranIn = typeof stored.cwd === 'string' ? stored.cwd : '';
  const to = placeIn(ranIn);
  const lastId = raw.at(-1)?.event_id ?? 0;
  const earlier = stored.relocations === undefined ? [] : (stored.relocations as Relocation[]);
  const isMove = (move: Relocation) => typeof move === 'object' && move !== null && typeof move.from === 'string' && typeof move.to === 'string' && Number.isInteger(move.through_event);
  if (!Array.isArray(earlier) || !earlier.every(isMove)) throw refuse('its record\'s relocations are not a list of moves');
  const moves: Relocation[] = ranIn && to !== ranIn ? [...earlier, { from: ranIn, to, through_event: lastId }] : earlier;
  const events = raw.map((event) => relocateEvent(event, moves));
  const checkpoint = toCheckpoint(replayEvents(events, row.steps_total));
  const parsed = sessionRecordSchema.safeParse({ ...stored, checkpoint, ...(moves.length ? { relocations: moves } : {}) });
  if (!parsed.success) throw refuse(`its record is not a session record (${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message})`);
  if (parsed.data.session_id !== id) throw refuse(`its record is that of session ${parsed.data.session_id}`);
  const record = ranIn && to !== ranIn ? relocateRecord(parsed.data, ranIn, to) : parsed.data;
  return { record, specYaml, specJson, events, blobs, host: row.host, epoch: highestEpoch(events) };
}
