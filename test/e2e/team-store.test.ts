import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainSpec } from '../helpers/chain-spec.js';
import { runCli, startCli, type CliResult } from '../helpers/cli.js';
import { findPostgres, startPostgres, type PostgresCluster } from '../../scripts/postgres-cluster.js';
import { requireAllToolsVariable } from '../helpers/programs.js';
import { migrations } from '../../source/store/remote/migrations.js';

const found = findPostgres();
const skipReason = 'missing' in found ? found.missing : undefined;
// CI installs PostgreSQL (.ci/run): there, a skip for want of it would pass by testing nothing.
if (skipReason && process.env[requireAllToolsVariable] === '1') throw new Error(`the team store tests need PostgreSQL (${skipReason}), and ${requireAllToolsVariable}=1 forbids skipping them: apt-get install postgresql`);
if (skipReason) console.warn(`team store tests skipped: ${skipReason}`);

/** Every output of every acode run here: checked for the password at the end. */
const outputs: CliResult[] = [];
let cluster: PostgresCluster;
let root: string;

async function acode(args: readonly string[], cwd: string, env: Record<string, string>): Promise<CliResult> {
  const result = await runCli(args, { cwd, env });
  outputs.push(result);
  return result;
}

function workspace(name: string, database: string) {
  const cwd = join(root, name);
  const home = join(cwd, 'home');
  const spec = chainSpec({
    steps: 3,
    provider: 'scripted',
    scripted: ['  scripted:', '    responses:', '      worker: { tool_calls: [ { name: file_write, args: { path: notes.md, content: "draft {{ topic }}" } } ], then: "Wrote notes." }'].join('\n'),
  });
  mkdirSync(cwd, { recursive: true });
  const env = { ACODE_HOME: home, ACODE_REMOTE_URL: cluster.url(database) };
  return { cwd, home, env, spec, run: (args: readonly string[], extra: Record<string, string> = {}) => acode(args, cwd, { ...env, ...extra }) };
}

function eventLines(home: string, id: string): { event_id: number; epoch?: number }[] {
  return readFileSync(join(home, 'sessions', id, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { event_id: number; epoch?: number });
}

async function runSpec(ws: ReturnType<typeof workspace>): Promise<string> {
  writeFileSync(join(ws.cwd, 'spec.yaml'), ws.spec);
  const result = await ws.run(['run', 'spec.yaml', '--json', '--force']);
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { session_id: string }).session_id;
}

describe.skipIf(skipReason !== undefined)(skipReason ? `team store (PostgreSQL) — skipped: ${skipReason}` : 'team store (PostgreSQL)', () => {
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'acode-team-'));
    cluster = await startPostgres();
    for (const database of ['runs', 'killed', 'newer', 'named']) cluster.psql(`CREATE DATABASE ${database}`);
  }, 60_000);

  afterAll(async () => {
    await cluster?.remove();
    if (root) rmSync(root, { recursive: true, force: true });
  }, 30_000);

  it('runs with the server stopped, shows DEGRADED with the pending count, then syncs every event exactly once', async () => {
    const ws = workspace('runs', 'runs');
    const init = await ws.run(['remote', 'init']);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stderr).toContain('schema created (version 3)');

    await cluster.stop();
    const id = await runSpec(ws);
    const local = eventLines(ws.home, id);
    expect(local.length).toBeGreaterThan(5);

    const degraded = await ws.run(['status']);
    expect(degraded.code).toBe(0);
    expect(degraded.stdout).toContain(`Sync: DEGRADED - ${local.length} events pending`);
    // The run's own push tried once as it ended, and said why it could not.
    expect(degraded.stdout).toMatch(/Last attempt: .*failed\nReason: connection refused by postgres:\/\/127\.0\.0\.1:\d+\/runs/);
    const json = JSON.parse((await ws.run(['status', '--json'])).stdout) as { state: string; pending_events: number; sessions: { session_id: string; pending_events: number }[] };
    expect(json).toMatchObject({ state: 'degraded', pending_events: local.length, sessions: [{ session_id: id, pending_events: local.length }] });

    const refused = await ws.run(['sync']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/cannot reach the team store: connection refused by postgres:\/\/127\.0\.0\.1:\d+\/runs/);
    const afterRefusal = await ws.run(['status', id]);
    expect(afterRefusal.stdout).toContain(`DEGRADED - ${local.length} events pending`);
    expect(afterRefusal.stdout).toMatch(/Last attempt: .*failed/);
    expect(afterRefusal.stdout).toContain('Reason: connection refused');

    await cluster.start();
    const synced = await ws.run(['sync']);
    expect(synced.code, synced.stderr).toBe(0);
    expect(synced.stdout).toContain(`${id}  e2e-chain  ${local.length} new events (${local.length} sent)`);
    const rows = cluster.psql(`SELECT count(*), count(DISTINCT event_id), min(event_id), max(event_id) FROM acode_events WHERE session_id = '${id}'`, 'runs');
    expect(rows).toBe(`${local.length}|${local.length}|${Math.min(...local.map((e) => e.event_id))}|${Math.max(...local.map((e) => e.event_id))}`);
    expect(cluster.psql(`SELECT status, steps_done, steps_total FROM acode_sessions WHERE id = '${id}'`, 'runs')).toBe('completed|3|3');
    // Every blob an event names is in the store, and matches its hash.
    const named = cluster.psql(`SELECT count(DISTINCT b) FROM acode_events, jsonb_path_query(event, 'strict $.**.after_blob') AS b WHERE session_id = '${id}'`, 'runs');
    expect(Number(named)).toBeGreaterThan(0);
    expect(cluster.psql(`SELECT count(*) FROM acode_blobs WHERE encode(sha256(bytes), 'hex') = hash`, 'runs')).toBe(cluster.psql('SELECT count(*) FROM acode_blobs', 'runs'));

    const again = await ws.run(['sync']);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('up to date ✓');
    expect(cluster.psql(`SELECT count(*) FROM acode_events`, 'runs')).toBe(String(local.length));
    const listed = await ws.run(['sessions', 'list', '--remote', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ session_id: id, workflow_name: 'e2e-chain', status: 'completed', steps_done: 3, steps_total: 3, host: hostname(), events: local.length }]);
    const none = await ws.run(['sessions', 'list', '--remote', '--status', 'paused', '--json']);
    expect(none.stdout).toBe('[]\n');
    const limited = JSON.parse((await ws.run(['sessions', 'list', '--remote', '--limit', '1', '--json'])).stdout) as unknown[];
    expect(limited).toHaveLength(1);
    const table = await ws.run(['sessions', 'list', '--remote']);
    expect(table.stdout).toMatch(new RegExp(`^ID\\s+WORKFLOW\\s+STATUS\\s+STEPS\\s+TOKENS\\s+HOST\\s+EVENTS\\s+UPDATED\\n${id}\\s+e2e-chain\\s+completed\\s+3/3`));
    const upToDate = await ws.run(['status']);
    expect(upToDate.stdout).toContain('Sync: Up to date ✓');
    expect(upToDate.stdout).toMatch(/Last attempt: .*succeeded/);
  }, 60_000);

  it('completes a run whose server stops mid-run, shows DEGRADED with the pending count, and syncs every event exactly once once it is back', async () => {
    const ws = workspace('midrun', 'midrun');
    cluster.psql('CREATE DATABASE midrun');
    expect((await ws.run(['remote', 'init'])).code).toBe(0);
    writeFileSync(join(ws.cwd, 'spec.yaml'), chainSpec({ steps: 10, provider: 'scripted', scripted: '  scripted:\n    latency_ms: 700' }));
    const run = startCli(['run', 'spec.yaml', '--json'], { cwd: ws.cwd, env: ws.env });
    // The run's background push has reached the store: then the server goes away under it.
    for (let waited = 0; cluster.psql('SELECT count(*) FROM acode_events', 'midrun') === '0' && waited < 20_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(run.child.exitCode).toBeNull();
    await cluster.stop();
    const result = await run.done;
    outputs.push(result);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'completed', steps_total: 10 });
    expect(result.stderr).toMatch(/sync: DEGRADED — \d+ events? pending · last attempt \d+ s ago · .*connection (refused|lost)/);
    const id = (JSON.parse(result.stdout) as { session_id: string }).session_id;
    const local = eventLines(ws.home, id);
    const cursor = JSON.parse(readFileSync(join(ws.home, 'sessions', id, 'sync-cursor.json'), 'utf8')) as { event_id: number };
    const pending = local.filter((e) => e.event_id > cursor.event_id).length;
    expect(pending).toBeGreaterThan(0);
    expect(pending).toBeLessThan(local.length);
    const status = await ws.run(['status']);
    expect(status.stdout).toContain(`Sync: DEGRADED - ${pending} event${pending === 1 ? '' : 's'} pending`);
    expect(status.stdout).toMatch(/Reason: connection refused by postgres:\/\/127\.0\.0\.1:\d+\/midrun/);
    await cluster.start();
    const synced = await ws.run(['sync']);
    expect(synced.code, synced.stderr).toBe(0);
    expect(synced.stdout).toContain(`${id}  e2e-chain  ${pending} new event${pending === 1 ? '' : 's'} (${pending} sent)`);
    expect(cluster.psql(`SELECT count(*) || '|' || count(DISTINCT event_id) FROM acode_events WHERE session_id = '${id}'`, 'midrun')).toBe(`${local.length}|${local.length}`);
    expect(cluster.psql(`SELECT status FROM acode_sessions WHERE id = '${id}'`, 'midrun')).toBe('completed');
  }, 90_000);

  it("pushes every session of this home with pending events before a listing, a status or a resume's claim answers, each event once", async () => {
    const ws = workspace('flush', 'flush');
    cluster.psql('CREATE DATABASE flush');
    expect((await ws.run(['remote', 'init'])).code).toBe(0);
    // The order rows reach the store in: events, and the leases a resume takes.
    cluster.psql(`CREATE TABLE arrivals (n bigserial, what text, session_id text);
      CREATE FUNCTION arrived() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO arrivals (what, session_id) VALUES (TG_ARGV[0], NEW.session_id); RETURN NULL; END $$;
      CREATE TRIGGER arrived AFTER INSERT ON acode_events FOR EACH ROW EXECUTE FUNCTION arrived('event');
      CREATE TRIGGER leased AFTER INSERT OR UPDATE ON acode_leases FOR EACH ROW EXECUTE FUNCTION arrived('lease');`, 'flush');
    writeFileSync(join(ws.cwd, 'budget.yaml'), chainSpec({ steps: 3, provider: 'scripted', budget: 40 }));
    /** Two sessions made while the server is down: each with every event pending. */
    const pendingPair = async () => {
      await cluster.stop();
      const ids: string[] = [];
      for (let i = 0; i < 2; i++) {
        const paused = await ws.run(['run', 'budget.yaml', '--json']);
        expect(JSON.parse(paused.stdout)).toMatchObject({ status: 'paused' });
        ids.push((JSON.parse(paused.stdout) as { session_id: string }).session_id);
      }
      await cluster.start();
      for (const id of ids) expect(cluster.psql(`SELECT count(*) FROM acode_events WHERE session_id = '${id}'`, 'flush')).toBe('0');
      return ids;
    };
    const stored = (id: string) => cluster.psql(`SELECT count(*) || '|' || count(DISTINCT event_id) FROM acode_events WHERE session_id = '${id}'`, 'flush');
    const whole = (id: string) => `${eventLines(ws.home, id).length}|${eventLines(ws.home, id).length}`;

    // A listing: its answer counts every event of both, which the store had before it answered.
    const [first, second] = await pendingPair();
    const listed = await ws.run(['sessions', 'list', '--remote', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = JSON.parse(listed.stdout) as { session_id: string; events: number }[];
    for (const id of [first!, second!]) {
      expect(rows.find((row) => row.session_id === id)?.events).toBe(eventLines(ws.home, id).length);
      expect(stored(id)).toBe(whole(id));
    }

    // A status: up to date, because it pushed them first.
    const [third, fourth] = await pendingPair();
    const status = JSON.parse((await ws.run(['status', '--json'])).stdout) as { state: string; pending_events: number };
    expect(status).toMatchObject({ state: 'up_to_date', pending_events: 0 });
    for (const id of [third!, fourth!]) expect(stored(id)).toBe(whole(id));

    // A resume of one: the other's events reach the store before the resumed one's lease is taken.
    const [resumed, other] = await pendingPair();
    const resume = await ws.run(['resume', resumed!, '--set', 'runtime.budgets.max_tokens=100000', '--json']);
    expect(resume.code, resume.stderr).toBe(0);
    const order = (what: string, id: string, bound: 'min' | 'max') => Number(cluster.psql(`SELECT ${bound}(n) FROM arrivals WHERE what = '${what}' AND session_id = '${id}'`, 'flush'));
    expect(order('event', other!, 'max')).toBeLessThan(order('lease', resumed!, 'min'));
    for (const id of [resumed!, other!]) expect(stored(id)).toBe(whole(id));
    // Nothing was left to send, nor sent twice.
    const sync = await ws.run(['sync']);
    expect(sync.stderr).toContain('up to date ✓');
    expect(cluster.psql('SELECT count(*) = count(DISTINCT (session_id, event_id)) FROM acode_events', 'flush')).toBe('t');
  }, 120_000);

  it('keeps every event exactly once when acode sync is killed mid-batch, and never pushes a superseded epoch\'s late line', async () => {
    const ws = workspace('killed', 'killed');
    expect((await ws.run(['remote', 'init'])).code).toBe(0);
    const id = await runSpec(ws);
    const log = join(ws.home, 'sessions', id, 'events.jsonl');
    const real = eventLines(ws.home, id);
    const last = real.at(-1)!;
    const epoch = last.epoch ?? 0;
    // A big session: thousands of events past the real ones, then one late line of an older epoch.
    const extra = 6000;
    const lines: string[] = [];
    for (let i = 1; i <= extra; i++) {
      const ts = new Date(Date.parse('2030-01-01T00:00:00Z') + i).toISOString();
      lines.push(JSON.stringify({ type: 'tool_called', step: '0', attempt: 1, call_id: `bulk-${i}`, name: 'file_read', args: { path: `f${i}` }, event_id: last.event_id + i, ts, epoch }));
    }
    lines.push(JSON.stringify({ type: 'tool_called', step: '0', attempt: 1, call_id: 'late-line', name: 'file_read', args: {}, event_id: last.event_id + extra + 1, ts: '2031-01-01T00:00:00.000Z', epoch: epoch - 1 }));
    appendFileSync(log, `${lines.join('\n')}\n`);
    const kept = real.length + extra;

    // A slow store: each batch's INSERT waits, so the kill lands between batches' commits.
    cluster.psql(`CREATE FUNCTION slow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.3); RETURN NULL; END $$;
      CREATE TRIGGER slow AFTER INSERT ON acode_events FOR EACH STATEMENT EXECUTE FUNCTION slow();`, 'killed');
    const sync = startCli(['sync'], { cwd: ws.cwd, env: ws.env });
    const cursorFile = join(ws.home, 'sessions', id, 'sync-cursor.json');
    for (let waited = 0; !existsSync(cursorFile) && waited < 20_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    sync.child.kill('SIGKILL');
    const killed = await sync.done;
    outputs.push(killed);
    expect(killed.signal).toBe('SIGKILL');
    const partial = Number(cluster.psql(`SELECT count(*) FROM acode_events WHERE session_id = '${id}'`, 'killed'));
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(kept);
    // The cursor moved after each batch stored: what it does not cover is at most the batch the kill cut off, never less than the store lacks.
    const covered = (JSON.parse(readFileSync(cursorFile, 'utf8')) as { event_id: number }).event_id;
    const uncovered = real.length + extra - eventLines(ws.home, id).filter((e) => e.event_id <= covered && (e.epoch ?? 0) === epoch).length;
    expect(uncovered).toBeGreaterThanOrEqual(kept - partial);
    expect(uncovered).toBeLessThanOrEqual(kept - partial + 500);

    cluster.psql('DROP TRIGGER slow ON acode_events', 'killed');
    const resumed = await ws.run(['sync']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(cluster.psql(`SELECT count(*), count(DISTINCT event_id) FROM acode_events WHERE session_id = '${id}'`, 'killed')).toBe(`${kept}|${kept}`);
    expect(cluster.psql(`SELECT count(*) FROM acode_events WHERE event->>'call_id' = 'late-line'`, 'killed')).toBe('0');
    expect((await ws.run(['status'])).stdout).toContain('Sync: Up to date ✓');
  }, 90_000);

  it('says a wrong password was refused, exit 1, without echoing it', async () => {
    const ws = workspace('wrong', 'runs');
    const wrong = 'Wr0ng-pass-7d1c9e3b5a';
    const env = { ACODE_REMOTE_URL: cluster.url('runs', wrong) };
    await runSpec(ws);
    const sync = await ws.run(['sync'], env);
    expect(sync.code).toBe(1);
    expect(sync.stderr).toContain('refused the user name or password in ACODE_REMOTE_URL');
    const init = await ws.run(['remote', 'init'], env);
    expect(init.code).toBe(1);
    const status = await ws.run(['status'], env);
    expect(status.stdout).toMatch(/Reason: the server at postgres:\/\/127\.0\.0\.1:\d+\/runs refused the user name or password in ACODE_REMOTE_URL \(28P01\)/);
    for (const result of [sync, init, status]) expect(result.stdout + result.stderr).not.toContain(wrong.slice(0, 8));
    expect(JSON.stringify(readdirSync(ws.home, { recursive: true }).map((f) => String(f)))).not.toContain(wrong.slice(0, 8));
    for (const file of readdirSync(ws.home, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())) {
      expect(readFileSync(join(file.parentPath, file.name), 'utf8')).not.toContain(wrong.slice(0, 8));
    }
  });

  it('runs remote init twice, and refuses a schema newer than it knows', async () => {
    const ws = workspace('newer', 'newer');
    expect((await ws.run(['remote', 'init'])).stderr).toContain('schema created (version 3)');
    const twice = await ws.run(['remote', 'init']);
    expect(twice.code).toBe(0);
    expect(twice.stderr).toContain('already at schema version 3, nothing to do');
    cluster.psql('INSERT INTO acode_schema (version) VALUES (4)', 'newer');
    const refused = await ws.run(['remote', 'init']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('schema is at version 4, newer than this acode knows (3)');
    const sync = await ws.run(['sync']);
    expect(sync.code).toBe(1);
    expect(sync.stderr).toContain('newer than this acode knows');
  });

  it('migrates a schema of version 1, after which the store refuses an event of a superseded epoch', async () => {
    const ws = workspace('migrate', 'migrate');
    cluster.psql('CREATE DATABASE migrate');
    cluster.psql(`CREATE TABLE acode_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now()); ${migrations[0]!} INSERT INTO acode_schema (version) VALUES (1);`, 'migrate');
    const sync = await ws.run(['sync']);
    expect(sync.code).toBe(1);
    expect(sync.stderr).toContain("is at schema version 1, older than this acode's 3: run 'acode remote init'");
    const init = await ws.run(['remote', 'init']);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stderr).toContain('schema migrated from version 1 to 3');
    const insert = (id: number, epoch: number, basedOn?: number) =>
      `INSERT INTO acode_events VALUES ('s', ${id}, ${epoch}, now(), 'tool_called', '${JSON.stringify({ event_id: id, epoch, ...(basedOn === undefined ? {} : { based_on: basedOn }) })}') ON CONFLICT DO NOTHING`;
    cluster.psql(`INSERT INTO acode_sessions VALUES ('s', NULL, 'w', 'running', 'chain', 0, 1, 0, 0, now(), 'h', now())`, 'migrate');
    for (const sql of [insert(1, 1), insert(3, 2, 1), insert(2, 1), insert(4, 1), insert(4, 2), insert(5, 2)]) cluster.psql(sql, 'migrate');
    // Epoch 2's holder read the log up to event 1: epoch 1's later lines (2, 4), sent by another client after it, are refused.
    expect(cluster.psql(`SELECT string_agg(event_id || ':' || epoch, ' ' ORDER BY event_id) FROM acode_events`, 'migrate')).toBe('1:1 3:2 4:2 5:2');
    // Stale lines that reached the store before the new epoch's first event go when it comes: the
    // new holder reuses their ids (it goes on from the last event it kept), and its events are the ones kept.
    cluster.psql(`INSERT INTO acode_sessions VALUES ('t', NULL, 'w', 'running', 'chain', 0, 1, 0, 0, now(), 'h', now())`, 'migrate');
    const into = (sql: string) => sql.replaceAll("VALUES ('s'", "VALUES ('t'");
    for (const sql of [insert(1, 1), insert(2, 1), insert(3, 1), insert(4, 1), insert(2, 2, 1), insert(3, 2), insert(4, 1)]) cluster.psql(into(sql), 'migrate');
    expect(cluster.psql(`SELECT string_agg(event_id || ':' || epoch, ' ' ORDER BY event_id) FROM acode_events WHERE session_id = 't'`, 'migrate')).toBe('1:1 2:2 3:2');
  });

  it('finds the URL in the variable remote.url_env names', async () => {
    const ws = workspace('named', 'named');
    mkdirSync(ws.home, { recursive: true });
    writeFileSync(join(ws.home, 'config.yml'), 'remote:\n  url_env: TEAM_DB\n');
    const init = await ws.run(['remote', 'init'], { ACODE_REMOTE_URL: '', TEAM_DB: cluster.url('named') });
    expect(init.code, init.stderr).toBe(0);
    const none = await ws.run(['status'], { ACODE_REMOTE_URL: cluster.url('named') });
    expect(none.stdout).toContain('Sync: off (no team store configured; set TEAM_DB');
  });

  it('pushes a running session in the background, and its last events as it ends', async () => {
    const ws = workspace('background', 'background');
    cluster.psql('CREATE DATABASE background');
    expect((await ws.run(['remote', 'init'])).code).toBe(0);
    writeFileSync(join(ws.cwd, 'spec.yaml'), chainSpec({ steps: 5, provider: 'scripted', scripted: '  scripted:\n    latency_ms: 1500' }));
    const run = startCli(['run', 'spec.yaml', '--json'], { cwd: ws.cwd, env: ws.env });
    let during = 0;
    let exited = false;
    void run.done.then(() => (exited = true));
    while (!exited && during === 0) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (!exited) during = Number(cluster.psql('SELECT count(*) FROM acode_events', 'background'));
    }
    const result = await run.done;
    outputs.push(result);
    expect(result.code, result.stderr).toBe(0);
    expect(during).toBeGreaterThan(0);
    const id = (JSON.parse(result.stdout) as { session_id: string }).session_id;
    const local = eventLines(ws.home, id);
    expect(cluster.psql(`SELECT count(*), count(DISTINCT event_id) FROM acode_events WHERE session_id = '${id}'`, 'background')).toBe(`${local.length}|${local.length}`);
    expect(cluster.psql(`SELECT status FROM acode_sessions WHERE id = '${id}'`, 'background')).toBe('completed');
    expect((await ws.run(['status'])).stdout).toContain('Sync: Up to date ✓');
  }, 60_000);

  it('shows, while a run cannot reach the store, the reason and when it tries again', async () => {
    // A port nobody listens on: every connection is refused at once.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const ws = workspace('refused', 'x');
    const env = { ...ws.env, ACODE_REMOTE_URL: `postgres://acode:${cluster.password}@127.0.0.1:${port}/x` };
    writeFileSync(join(ws.cwd, 'spec.yaml'), chainSpec({ steps: 4, provider: 'scripted', scripted: '  scripted:\n    latency_ms: 1500' }));
    const run = startCli(['run', 'spec.yaml'], { cwd: ws.cwd, env });
    let seen = '';
    for (let waited = 0; waited < 15_000 && !seen.includes('Next retry'); waited += 250) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      seen = (await acode(['status'], ws.cwd, env)).stdout;
    }
    const result = await run.done;
    outputs.push(result);
    expect(result.code, result.stderr).toBe(0);
    expect(seen).toMatch(/Sync: DEGRADED - \d+ events? pending/);
    expect(seen).toMatch(new RegExp(`Reason: connection refused by postgres://127\\.0\\.0\\.1:${port}/x \\(is the server running\\?\\)\\nNext retry: \\S+ \\(by the run pushing in the background\\)`));
  }, 30_000);

  it('says DEGRADED in the plain lines while the store is down, and pushes mid-run once it is back, without a restart', async () => {
    const ws = workspace('reconnect', 'reconnect');
    cluster.psql('CREATE DATABASE reconnect');
    expect((await ws.run(['remote', 'init'])).code).toBe(0);
    await cluster.stop();
    writeFileSync(join(ws.cwd, 'spec.yaml'), chainSpec({ steps: 12, provider: 'scripted', scripted: '  scripted:\n    latency_ms: 1500' }));
    const run = startCli(['run', 'spec.yaml', '--json'], { cwd: ws.cwd, env: ws.env });
    let seen = '';
    run.child.stderr!.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    for (let waited = 0; !seen.includes('sync: DEGRADED') && waited < 15_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    await cluster.start();
    let during = 0;
    for (let waited = 0; during === 0 && run.child.exitCode === null; waited += 250) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      during = Number(cluster.psql('SELECT count(*) FROM acode_events', 'reconnect'));
    }
    const result = await run.done;
    outputs.push(result);
    expect(result.code, result.stderr).toBe(0);
    // The store came back while the run ran: its events went there before the run ended.
    expect(during).toBeGreaterThan(0);
    expect(result.stderr).toMatch(/sync: DEGRADED — \d+ events? pending · last attempt 0 s ago · next retry in \d+ s · connection refused\n/);
    expect(result.stderr).toMatch(/sync: reconnected — the team store answers again/);
    expect(result.stderr.indexOf('sync: reconnected')).toBeLessThan(result.stderr.indexOf('completed: 12 steps'));
    const id = (JSON.parse(result.stdout) as { session_id: string }).session_id;
    const local = eventLines(ws.home, id);
    expect(cluster.psql(`SELECT count(*), count(DISTINCT event_id) FROM acode_events WHERE session_id = '${id}'`, 'reconnect')).toBe(`${local.length}|${local.length}`);
  }, 90_000);

  it("stops a run whose lease in the store another machine's process has taken, saying who, writing nothing more", async () => {
    const ws = workspace('stolen', 'stolen');
    cluster.psql('CREATE DATABASE stolen');
    expect((await ws.run(['remote', 'init'])).code).toBe(0);
    writeFileSync(join(ws.cwd, 'spec.yaml'), chainSpec({ steps: 8, provider: 'scripted', scripted: '  scripted:\n    latency_ms: 1000' }));
    const run = startCli(['run', 'spec.yaml', '--json'], { cwd: ws.cwd, env: ws.env });
    for (let waited = 0; cluster.psql('SELECT count(*) FROM acode_leases', 'stolen') === '0' && waited < 15_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    // Another home took it over (as a resume does once the lease is stale): a live process (this one), a higher epoch.
    cluster.psql(`UPDATE acode_leases SET token = 'elsewhere', pid = ${process.pid}, home = '/elsewhere/home', epoch = epoch + 10, heartbeat_at = now()`, 'stolen');
    const result = await run.done;
    outputs.push(result);
    expect(result.code).toBe(16);
    const error = JSON.parse(result.stderr.trim().split('\n').at(-1)!) as { error: { message: string } };
    expect(error.error.message).toMatch(new RegExp(`^the team store's lease of session [0-9a-f]{16} was taken by pid ${process.pid} on ${hostname()} \\(ACODE_HOME /elsewhere/home\\); this process stopped without writing more`));
    const id = readdirSync(join(ws.home, 'sessions')).find((name) => /^[0-9a-f]{16}$/.test(name))!;
    const lines = eventLines(ws.home, id);
    // It stopped at its next write: not every step ran, and no pause was written after the loss.
    expect(lines.filter((e) => (e as { type?: string }).type === 'step_completed').length).toBeLessThan(8);
    expect(lines.some((e) => (e as { type?: string }).type === 'session_paused')).toBe(false);
  }, 60_000);

  it('never holds a run up on a store that does not answer', async () => {
    const sockets: Socket[] = [];
    // Accepts connections and never says a word: a store behind a dropped route.
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const ws = workspace('silent', 'x');
      writeFileSync(join(ws.cwd, 'spec.yaml'), ws.spec);
      const started = Date.now();
      const result = await ws.run(['run', 'spec.yaml', '--json'], { ACODE_REMOTE_URL: `postgres://acode:${cluster.password}@127.0.0.1:${port}/x` });
      const elapsed = Date.now() - started;
      expect(result.code, result.stderr).toBe(0);
      // The run itself, then at most the 2 s its process gives its last events (a connection attempt alone would take 5 s).
      expect(elapsed).toBeLessThan(4500);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  }, 30_000);

  it('pushes the other sessions when one log is damaged, and says which was not pushed', async () => {
    const ws = workspace('damaged', 'damaged');
    cluster.psql('CREATE DATABASE damaged');
    expect((await ws.run(['remote', 'init'])).code).toBe(0);
    await cluster.stop();
    const broken = await runSpec(ws);
    const fine = await runSpec(ws);
    await cluster.start();
    const log = join(ws.home, 'sessions', broken, 'events.jsonl');
    const lines = readFileSync(log, 'utf8').split('\n');
    lines[1] = '{"damaged": ';
    writeFileSync(log, lines.join('\n'));
    const sync = await ws.run(['sync']);
    expect(sync.code).toBe(1);
    expect(sync.stderr).toContain(`acode: not pushed: session ${broken} cannot be read`);
    expect(sync.stdout).toContain(`${fine}  e2e-chain`);
    expect(Number(cluster.psql(`SELECT count(*) FROM acode_events WHERE session_id = '${fine}'`, 'damaged'))).toBe(eventLines(ws.home, fine).length);
    const status = await ws.run(['status']);
    expect(status.stdout).toContain('Sync: DEGRADED - 0 events pending, 1 session unreadable');
    expect(status.stdout).toContain(`${broken}  not pushed: session ${broken} cannot be read`);
  }, 60_000);

  it('lists a session whose lease lapsed — killed here, or silent on another machine past the lock timeout — as running (interrupted), as the local listing does', async () => {
    const ws = workspace('lapsed', 'lapsed');
    cluster.psql('CREATE DATABASE lapsed');
    expect((await ws.run(['remote', 'init'])).code).toBe(0);
    writeFileSync(join(ws.cwd, 'spec.yaml'), chainSpec({ steps: 20, provider: 'scripted', scripted: '  scripted:\n    latency_ms: 1000' }));
    const run = startCli(['run', 'spec.yaml'], { cwd: ws.cwd, env: ws.env });
    const lease = () => cluster.psql('SELECT count(*) FROM acode_leases', 'lapsed');
    for (let waited = 0; lease() === '0' && waited < 20_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lease()).toBe('1');
    const id = cluster.psql('SELECT session_id FROM acode_leases', 'lapsed');
    const listed = async (extra: Record<string, string> = {}) => {
      const json = JSON.parse((await ws.run(['sessions', 'list', '--remote', '--json'], extra)).stdout) as { session_id: string; status: string; interrupted: boolean }[];
      const table = (await ws.run(['sessions', 'list', '--remote'], extra)).stdout;
      return { row: json.find((r) => r.session_id === id)!, line: table.split('\n').find((l) => l.startsWith(id))! };
    };
    // Alive, its heartbeat fresh: running.
    let seen = await listed();
    expect(seen.row).toMatchObject({ status: 'running', interrupted: false });
    expect(seen.line).toMatch(new RegExp(`^${id}\\s+e2e-chain\\s+running\\s+\\d+/20`));
    run.child.kill('SIGKILL');
    outputs.push(await run.done);
    // Killed on this machine: its pid here is gone, whatever the heartbeat says.
    seen = await listed();
    expect(seen.row).toMatchObject({ status: 'running', interrupted: true });
    expect(seen.line).toMatch(new RegExp(`^${id}\\s+e2e-chain\\s+running \\(interrupted\\)\\s+\\d+/20`));
    // As the local listing words it.
    expect((await ws.run(['sessions', 'list'])).stdout).toMatch(new RegExp(`^${id}\\s+e2e-chain\\s+running \\(interrupted\\)`, 'm'));
    // Held on another machine (its pid there cannot be looked at from here), its heartbeat fresh: running.
    cluster.psql(`UPDATE acode_leases SET host = 'far-away', heartbeat_at = now()`, 'lapsed');
    seen = await listed();
    expect(seen.row).toMatchObject({ status: 'running', interrupted: false });
    expect(seen.line).toMatch(new RegExp(`^${id}\\s+e2e-chain\\s+running\\s+\\d+/20`));
    // Its heartbeat silent longer than resume.lock_timeout_seconds (60 s): killed there.
    cluster.psql(`UPDATE acode_leases SET heartbeat_at = now() - interval '61 seconds'`, 'lapsed');
    seen = await listed();
    expect(seen.row).toMatchObject({ status: 'running', interrupted: true });
    expect(seen.line).toMatch(new RegExp(`^${id}\\s+e2e-chain\\s+running \\(interrupted\\)\\s+\\d+/20`));
    // A longer lock timeout in config: 61 s of silence is not yet a lapse.
    writeFileSync(join(ws.home, 'config.yml'), 'resume:\n  lock_timeout_seconds: 120\n');
    seen = await listed();
    expect(seen.row).toMatchObject({ status: 'running', interrupted: false });
    rmSync(join(ws.home, 'config.yml'));
    // No lease at all (never taken, or let go) while the store says running: nobody runs it.
    cluster.psql('DELETE FROM acode_leases', 'lapsed');
    expect((await listed()).row).toMatchObject({ status: 'running', interrupted: true });
  }, 90_000);

  it('leaves the password nowhere under ACODE_HOME nor in any output', () => {
    const secret = cluster.password;
    const pieces = [secret, encodeURIComponent(secret), secret.slice(0, 8), secret.slice(-8)];
    for (const result of outputs) for (const piece of pieces) expect(result.stdout + result.stderr).not.toContain(piece);
    const homes = readdirSync(root).map((name) => join(root, name));
    let files = 0;
    for (const home of homes) {
      for (const entry of readdirSync(home, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())) {
        const text = readFileSync(join(entry.parentPath, entry.name), 'latin1');
        files++;
        for (const piece of pieces) expect(text, join(entry.parentPath, entry.name)).not.toContain(piece);
      }
    }
    expect(files).toBeGreaterThan(10);
    expect(outputs.length).toBeGreaterThan(15);
  });
});
