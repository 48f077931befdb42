import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateSessions } from './generate-sessions.js';

const cli = fileURLToPath(new URL('./cli.js', import.meta.url));

/** One `acode <args>` as a whole process; its wall time in ms. */
function timed(args: string[], env: NodeJS.ProcessEnv): number {
  const start = performance.now();
  const result = spawnSync(process.execPath, [cli, ...args], { env, encoding: 'utf8' });
  const ms = performance.now() - start;
  if (result.status !== 0) throw new Error(`acode ${args.join(' ')} failed: ${result.stderr}`);
  return ms;
}

/**
 * `node dist/bench.js remote`: events a second into PostgreSQL, `acode sync` as a whole process
 * pushing one session of `count` events to the store ACODE_REMOTE_URL names (its schema made with
 * `acode remote init`); then the same sync with nothing left to push. The session is removed from
 * the store after.
 */
export async function remoteSync(count: number, url = process.env.ACODE_REMOTE_URL): Promise<{ eventsPerS: number; syncMs: number; idleMs: number } | string> {
  if (!url) return 'skipped: set ACODE_REMOTE_URL to a postgres:// URL of a database acode may write to';
  const home = mkdtempSync(join(tmpdir(), 'acode-bench-remote-'));
  const env = { ...process.env, ACODE_HOME: home, ACODE_REMOTE_URL: url };
  const { ids } = generateSessions(home, 1, () => home);
  const id = ids[0]!;
  const start = Date.parse('2026-01-01T00:00:00Z');
  const lines: string[] = [];
  for (let i = 1; i <= count; i++) {
    lines.push(JSON.stringify({ type: 'tool_called', step: '0', attempt: 1, call_id: `c${i}`, name: 'file_read', args: { path: `src/file-${i}.ts` }, event_id: i, ts: new Date(start + i).toISOString(), epoch: 1 }));
  }
  writeFileSync(join(home, 'sessions', id, 'events.jsonl'), `${lines.join('\n')}\n`);
  const { default: pg } = await import('pg');
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    timed(['remote', 'init'], env);
    await db.query('DELETE FROM acode_sessions WHERE id = $1', [id]);
    const syncMs = timed(['sync'], env);
    const idleMs = timed(['sync'], env);
    const [row] = (await db.query<{ n: string }>('SELECT count(*) AS n FROM acode_events WHERE session_id = $1', [id])).rows;
    if (Number(row?.n) !== count) throw new Error(`the store holds ${row?.n} events of ${count}`);
    return { eventsPerS: count / (syncMs / 1000), syncMs, idleMs };
  } finally {
    await db.query('DELETE FROM acode_sessions WHERE id = $1', [id]).catch(() => undefined);
    await db.end();
    rmSync(home, { recursive: true, force: true });
  }
}
