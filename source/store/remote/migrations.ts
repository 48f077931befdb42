/**
 * The team store's schema, as the ordered list of steps that build it: a step's position (1-based)
 * is the schema version it brings the database to. Steps are only ever appended — a released step
 * is never edited, since databases out there already ran it — and each runs in the transaction that
 * records its version in acode_schema.
 */
export const migrations: readonly string[] = [
  // 1: sessions, their fenced event streams, the blobs the events name, remote leases.
  `
  CREATE TABLE acode_sessions (
    id text PRIMARY KEY,
    name text,
    workflow text NOT NULL,
    status text NOT NULL,
    pattern_type text NOT NULL,
    steps_done integer NOT NULL,
    steps_total integer NOT NULL,
    tokens_input bigint NOT NULL,
    tokens_output bigint NOT NULL,
    created_at timestamptz NOT NULL,
    host text NOT NULL,
    updated_at timestamptz NOT NULL,
    synced_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE TABLE acode_events (
    session_id text NOT NULL REFERENCES acode_sessions (id) ON DELETE CASCADE,
    event_id integer NOT NULL,
    epoch integer NOT NULL,
    ts timestamptz NOT NULL,
    type text NOT NULL,
    event jsonb NOT NULL,
    PRIMARY KEY (session_id, event_id)
  );
  CREATE INDEX acode_events_replay ON acode_events (session_id, ts, event_id);
  CREATE TABLE acode_blobs (
    hash text PRIMARY KEY CHECK (hash ~ '^[0-9a-f]{64}$'),
    bytes bytea NOT NULL,
    size integer NOT NULL
  );
  CREATE TABLE acode_leases (
    session_id text PRIMARY KEY REFERENCES acode_sessions (id) ON DELETE CASCADE,
    host text NOT NULL,
    pid integer NOT NULL,
    epoch integer NOT NULL,
    heartbeat_at timestamptz NOT NULL
  );
  `,
  // 2: the store refuses an event of a superseded epoch, whoever sends it (the fence of
  // engine/epoch-fence.ts, checked against what the store holds): an event is stale when a higher
  // epoch is there whose holder read the log only up to an id below it (based_on, else the id
  // before its first event). acode_epochs keeps that point per epoch, so the check is one lookup in
  // a table of a few rows a session, whatever its length. Refused rows are skipped, so a batch
  // holding one still stores the rest.
  `
  CREATE TABLE acode_epochs (
    session_id text NOT NULL REFERENCES acode_sessions (id) ON DELETE CASCADE,
    epoch integer NOT NULL,
    based_on integer NOT NULL,
    PRIMARY KEY (session_id, epoch)
  );
  CREATE FUNCTION acode_refuse_stale_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    mine integer := coalesce((NEW.event ->> 'based_on')::integer, NEW.event_id - 1);
    known integer;
  BEGIN
    IF EXISTS (SELECT 1 FROM acode_epochs e WHERE e.session_id = NEW.session_id AND e.epoch > NEW.epoch AND e.based_on < NEW.event_id) THEN
      RETURN NULL;
    END IF;
    SELECT e.based_on INTO known FROM acode_epochs e WHERE e.session_id = NEW.session_id AND e.epoch = NEW.epoch;
    IF NOT FOUND THEN
      INSERT INTO acode_epochs (session_id, epoch, based_on) VALUES (NEW.session_id, NEW.epoch, mine) ON CONFLICT DO NOTHING;
    ELSIF mine < known THEN
      UPDATE acode_epochs SET based_on = mine WHERE session_id = NEW.session_id AND epoch = NEW.epoch AND based_on > mine;
    END IF;
    RETURN NEW;
  END $$;
  CREATE TRIGGER acode_refuse_stale_epoch BEFORE INSERT ON acode_events FOR EACH ROW EXECUTE FUNCTION acode_refuse_stale_epoch();
  `,
  // 3: what another machine needs to resume a session — its record (session.json as stored, without
  // the checkpoint, which the events rebuild) and its spec snapshots (blobs) — the lease's holder in
  // full (its token, home and process start, to tell a live holder from a dead one), and the
  // listing's indexes (newest first, with or without a status), so that a page is read, not a table.
  // The stale-epoch check also removes, when a new epoch's first event arrives, the lines of older
  // epochs past what its holder read that reached the store before it: a new holder reuses their
  // ids (its events go on from the last one it kept), and the key (session_id, event_id) had kept
  // the stale line and dropped the new one. The store then holds exactly the fenced stream, in id
  // order, as another machine pulls it.
  `
  CREATE OR REPLACE FUNCTION acode_refuse_stale_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    mine integer := coalesce((NEW.event ->> 'based_on')::integer, NEW.event_id - 1);
    known integer;
  BEGIN
    IF EXISTS (SELECT 1 FROM acode_epochs e WHERE e.session_id = NEW.session_id AND e.epoch > NEW.epoch AND e.based_on < NEW.event_id) THEN
      RETURN NULL;
    END IF;
    SELECT e.based_on INTO known FROM acode_epochs e WHERE e.session_id = NEW.session_id AND e.epoch = NEW.epoch;
    IF NOT FOUND OR mine < known THEN
      INSERT INTO acode_epochs (session_id, epoch, based_on) VALUES (NEW.session_id, NEW.epoch, mine)
        ON CONFLICT (session_id, epoch) DO UPDATE SET based_on = least(acode_epochs.based_on, EXCLUDED.based_on);
      DELETE FROM acode_events e WHERE e.session_id = NEW.session_id AND e.event_id > mine AND e.epoch < NEW.epoch;
    END IF;
    RETURN NEW;
  END $$;
  ALTER TABLE acode_sessions ADD COLUMN record jsonb, ADD COLUMN spec_yaml_blob text, ADD COLUMN spec_json_blob text;
  ALTER TABLE acode_leases ADD COLUMN token text NOT NULL DEFAULT '', ADD COLUMN home text NOT NULL DEFAULT '',
    ADD COLUMN proc_start text, ADD COLUMN taken_at timestamptz NOT NULL DEFAULT now();
  CREATE INDEX acode_sessions_recent ON acode_sessions (updated_at, id);
  CREATE INDEX acode_sessions_status_recent ON acode_sessions (status, updated_at, id);
  `,
];

/** The schema version this acode builds and reads. */
export const knownSchemaVersion = migrations.length;
