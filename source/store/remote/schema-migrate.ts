import { AcodeError, ExitCode } from '../../errors/acode-error.js';
import type { RemoteConnection } from './remote-client.js';
import { knownSchemaVersion, migrations } from './migrations.js';

/** Any fixed number: held for the length of a migration so two `acode remote init` run one after the other. */
const migrationLockKey = 0x6163_6f64;

export interface MigrationResult {
  from: number;
  to: number;
}

/** The store's schema version: 0 before `acode remote init` ever ran. */
export async function schemaVersion(db: RemoteConnection): Promise<number> {
  const [table] = await db.query<{ present: boolean }>(`SELECT to_regclass('acode_schema') IS NOT NULL AS present`);
  if (!table?.present) return 0;
  const [row] = await db.query<{ version: number }>('SELECT max(version)::integer AS version FROM acode_schema');
  return row?.version ?? 0;
}

function newerSchema(version: number): AcodeError {
  return new AcodeError(
    `the team store's schema is at version ${version}, newer than this acode knows (${knownSchemaVersion}): another machine runs a newer acode; upgrade acode here (nothing was changed)`,
    ExitCode.failure,
  );
}

/**
 * Brings the schema to knownSchemaVersion, each missing step in its own transaction, under an
 * advisory lock: safe to run again (nothing left to do), and refusing a schema newer than known.
 */
export async function migrate(db: RemoteConnection): Promise<MigrationResult> {
  await db.query('SELECT pg_advisory_lock($1)', [migrationLockKey]);
  try {
    await db.query('CREATE TABLE IF NOT EXISTS acode_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const from = await schemaVersion(db);
    if (from > knownSchemaVersion) throw newerSchema(from);
    for (let version = from + 1; version <= knownSchemaVersion; version++) {
      await db.transaction(async () => {
        await db.query(migrations[version - 1]!);
        await db.query('INSERT INTO acode_schema (version) VALUES ($1)', [version]);
      });
    }
    return { from, to: knownSchemaVersion };
  } finally {
    await db.query('SELECT pg_advisory_unlock($1)', [migrationLockKey]);
  }
}

/** Refuses a store whose schema is missing, older or newer than this acode's: before anything is pushed. */
export async function requireCurrentSchema(db: RemoteConnection, shown: string): Promise<void> {
  const version = await schemaVersion(db);
  if (version > knownSchemaVersion) throw newerSchema(version);
  if (version < knownSchemaVersion) {
    throw new AcodeError(`the team store at ${shown} ${version === 0 ? 'has no acode schema yet' : `is at schema version ${version}, older than this acode's ${knownSchemaVersion}`}: run 'acode remote init'`, ExitCode.failure);
  }
}
