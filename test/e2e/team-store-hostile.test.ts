import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainSpec } from '../helpers/chain-spec.js';
import { cliPath, runCli, startCli, type CliResult } from '../helpers/cli.js';
import { fenceEvents } from '../../source/engine/epoch-fence.js';
import { readEventLog } from '../../source/store/event-log.js';
import { findPostgres, startPostgres, type PostgresCluster } from '../../scripts/postgres-cluster.js';
import { requireAllToolsVariable } from '../helpers/programs.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { tempDir } from '../helpers/temp-dir.js';

const found = findPostgres();
const skipReason = 'missing' in found ? found.missing : undefined;
if (skipReason && process.env[requireAllToolsVariable] === '1') throw new Error(`the team store tests need PostgreSQL (${skipReason}), and ${requireAllToolsVariable}=1 forbids skipping them: apt-get install postgresql`);
if (skipReason) console.warn(`team store hostile tests skipped: ${skipReason}`);

let cluster: PostgresCluster;
let databases = 0;
const roots: string[] = [];
const outputs: CliResult[] = [];
const proxies: TcpProxy[] = [];
/** Process groups of acode runs started here: killed whole in afterAll, whatever became of the test. */
const groups: number[] = [];

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

/** A home with one finished session and 6,000 more events of it appended (a dozen batches to push), its store freshly made. */
async function bigSession() {
  const database = `hostile${++databases}`;
  cluster.psql(`CREATE DATABASE ${database}`);
  const cwd = tempDir();
  roots.push(cwd);
  mkdirSync(cwd, { recursive: true });
  const env = { ACODE_HOME: join(cwd, 'home'), ACODE_REMOTE_URL: cluster.url(database) };
  const run = async (args: readonly string[], extra: Record<string, string> = {}) => {
    const result = await runCli(args, { cwd, env: { ...env, ...extra } });
    outputs.push(result);
    return result;
  };
  expect((await run(['remote', 'init'])).code).toBe(0);
  writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps: 2, provider: 'scripted' }));
  const ran = await run(['run', 'spec.yaml', '--json'], { ACODE_REMOTE_URL: '' });
  expect(ran.code, ran.stderr).toBe(0);
  const id = (JSON.parse(ran.stdout) as { session_id: string }).session_id;
  const log = join(env.ACODE_HOME, 'sessions', id, 'events.jsonl');
  const lines = readFileSync(log, 'utf8').trim().split('\n');
  const last = JSON.parse(lines.at(-1)!) as { event_id: number; epoch: number };
  const extra = Array.from({ length: 6000 }, (_, i) =>
    JSON.stringify({ type: 'tool_called', step: '0', attempt: 1, call_id: `bulk-${i}`, name: 'file_read', args: { path: `src/file-${i}.ts`, why: 'x'.repeat(100) }, event_id: last.event_id + i + 1, ts: new Date(Date.parse('2030-01-01T00:00:00Z') + i).toISOString(), epoch: last.epoch }),
  );
  appendFileSync(log, `${extra.join('\n')}\n`);
  const total = lines.length + extra.length;
  const stored = () => cluster.psql(`SELECT count(*) || '|' || count(DISTINCT event_id) FROM acode_events WHERE session_id = '${id}'`, database);
  /** The same store through `port` (a proxy in front of it). */
  const through = (port: number) => ({ ACODE_REMOTE_URL: cluster.url(database).replace(`:${cluster.port}/`, `:${port}/`) });
  return { database, cwd, env, id, total, run, stored, through };
}

describe.skipIf(skipReason !== undefined)(skipReason ? `team store hostile cases — skipped: ${skipReason}` : 'team store: hostile cases', () => {
  beforeAll(async () => {
    cluster = await startPostgres();
  }, 60_000);

  afterAll(async () => {
    for (const pid of groups) killGroup(pid);
    for (const proxy of proxies) await proxy.close();
    await cluster?.remove();
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  }, 30_000);

  it('says why when the server stops mid-batch, and the next sync still stores every event once', async () => {
    const s = await bigSession();
    // A slow store: each batch waits, so the server is stopped while one is under way.
    cluster.psql(`CREATE FUNCTION slow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.4); RETURN NULL; END $$;
      CREATE TRIGGER slow AFTER INSERT ON acode_events FOR EACH STATEMENT EXECUTE FUNCTION slow();`, s.database);
    const sync = startCli(['sync'], { cwd: s.cwd, env: s.env });
    const cursor = join(s.env.ACODE_HOME, 'sessions', s.id, 'sync-cursor.json');
    for (let waited = 0; waited < 20_000; waited += 20) {
      try {
        if ((JSON.parse(readFileSync(cursor, 'utf8')) as { event_id: number }).event_id > 0) break;
      } catch {
        // not written yet
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await cluster.stop();
    const stopped = await sync.done;
    outputs.push(stopped);
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toMatch(/^acode: cannot reach the team store: .*(terminating connection due to administrator command|was lost mid-transfer).*; local sessions are unaffected, fix it and run 'acode sync'\n$/);
    // While it is down, status (which tries to push first) says what is pending and why.
    const status = await s.run(['status']);
    expect(status.stdout).toMatch(/Sync: DEGRADED - \d+ events pending/);
    expect(status.stdout).toMatch(/Reason: connection refused by postgres:\/\/127\.0\.0\.1:\d+\/hostile\d+/);
    await cluster.start();
    cluster.psql('DROP TRIGGER slow ON acode_events', s.database);
    const again = await s.run(['sync']);
    expect(again.code, again.stderr).toBe(0);
    expect(s.stored()).toBe(`${s.total}|${s.total}`);
  }, 90_000);

  it('says why when the connection drops after some bytes, and the next sync still stores every event once', async () => {
    const s = await bigSession();
    const proxy = await startTcpProxy(cluster.port, { dropAfter: 300_000 });
    proxies.push(proxy);
    const cut = await s.run(['sync'], s.through(proxy.port));
    expect(cut.code).toBe(1);
    expect(cut.stderr).toMatch(/^acode: cannot reach the team store: the connection to postgres:\/\/127\.0\.0\.1:\d+\/hostile\d+ was lost mid-transfer \((Connection terminated unexpectedly|read ECONNRESET)\); local sessions are unaffected/);
    const partial = Number(s.stored().split('|')[0]);
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(s.total);
    const whole = await s.run(['sync']);
    expect(whole.code, whole.stderr).toBe(0);
    expect(s.stored()).toBe(`${s.total}|${s.total}`);
  }, 90_000);

  it('gives up on a connection that goes silent, saying so, instead of waiting for ever', async () => {
    const s = await bigSession();
    // A stall far longer than the statement timeout, made short here so the test does not wait 20 s.
    writeFileSync(join(s.env.ACODE_HOME, 'config.yml'), 'remote:\n  statement_timeout_seconds: 2\n');
    const proxy = await startTcpProxy(cluster.port, { stallAfter: 200_000 });
    proxies.push(proxy);
    const started = Date.now();
    const stalled = await s.run(['sync'], s.through(proxy.port));
    const elapsed = Date.now() - started;
    expect(stalled.code).toBe(1);
    expect(stalled.stderr).toMatch(/cannot reach the team store: no answer from postgres:\/\/127\.0\.0\.1:\d+\/hostile\d+ within 2 s to a statement \(the connection went silent\)/);
    expect(elapsed).toBeGreaterThan(2000);
    expect(elapsed).toBeLessThan(10_000);
    // A run with the store behind the silent route is not held up by it.
    const runStarted = Date.now();
    const ran = await s.run(['run', 'spec.yaml', '--json'], s.through(proxy.port));
    expect(ran.code, ran.stderr).toBe(0);
    expect(Date.now() - runStarted).toBeLessThan(8000);
    const whole = await s.run(['sync']);
    expect(whole.code, whole.stderr).toBe(0);
    expect(s.stored()).toBe(`${s.total}|${s.total}`);
  }, 120_000);

  it('gives a store that stalls 3 s for the pending events before a listing or a resume, then lists, and resumes degraded', async () => {
    const s = await bigSession();
    writeFileSync(join(s.cwd, 'budget.yaml'), chainSpec({ steps: 3, provider: 'scripted', budget: 40 }));
    const paused = await s.run(['run', 'budget.yaml', '--json'], { ACODE_REMOTE_URL: '' });
    const id = (JSON.parse(paused.stdout) as { session_id: string }).session_id;
    // Every connection through it carries 200 kB, then goes silent: the 6,000 events never all get through.
    const proxy = await startTcpProxy(cluster.port, { stallAfter: 200_000 });
    proxies.push(proxy);
    let started = Date.now();
    const listed = await s.run(['sessions', 'list', '--remote', '--json'], s.through(proxy.port));
    expect(Date.now() - started).toBeLessThan(9000);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toMatch(/did not take this home's pending events within 3 s; listing with \d+ events of it still pending/);
    expect((JSON.parse(listed.stdout) as { session_id: string }[]).map((row) => row.session_id)).toContain(s.id);
    started = Date.now();
    const resumed = await s.run(['resume', id, '--set', 'runtime.budgets.max_tokens=100000', '--json'], s.through(proxy.port));
    expect(Date.now() - started).toBeLessThan(12_000);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'completed' });
    expect(resumed.stderr).toMatch(/sync: DEGRADED — \d+ events pending · .* took more than 3 s to take this home's pending events \(\d+ still pending\).*; resuming on this home's lock alone/);
    // Whatever the stalls cut off is sent again, and kept once.
    const whole = await s.run(['sync']);
    expect(whole.code, whole.stderr).toBe(0);
    expect(s.stored()).toBe(`${s.total}|${s.total}`);
  }, 90_000);

  it('gives a store that never answers the connection 3 s, connecting included, before a resume of a session this home has runs degraded', async () => {
    const s = await bigSession();
    writeFileSync(join(s.cwd, 'budget.yaml'), chainSpec({ steps: 3, provider: 'scripted', budget: 40 }));
    const paused = await s.run(['run', 'budget.yaml', '--json'], { ACODE_REMOTE_URL: '' });
    const id = (JSON.parse(paused.stdout) as { session_id: string }).session_id;
    // The connection is taken and never answered: not even PostgreSQL's startup reply comes back.
    const proxy = await startTcpProxy(cluster.port, { stallAfter: 0 });
    proxies.push(proxy);
    const resume = startCli(['resume', id, '--set', 'runtime.budgets.max_tokens=100000', '--json'], { cwd: s.cwd, env: { ...s.env, ...s.through(proxy.port) } });
    let stderr = '';
    resume.child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // From the moment the resume knocks (its first bytes reach the proxy) to the moment it goes on degraded.
    await expect.poll(() => proxy.sent, { timeout: 20_000, interval: 10 }).toBeGreaterThan(0);
    const knocked = Date.now();
    await expect.poll(() => stderr, { timeout: 20_000, interval: 10 }).toContain("resuming on this home's lock alone");
    const waited = Date.now() - knocked;
    expect(waited).toBeLessThan(4500); // the budget's 3 s, where it waited the driver's 5 s connect timeout
    expect(stderr).toMatch(/sync: DEGRADED — \d+ events pending · no answer from postgres:\/\/127\.0\.0\.1:\d+\/hostile\d+ within 3 s; resuming on this home's lock alone/);
    const resumed = await resume.done;
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'completed' });
  }, 90_000);

  it('runs and resumes against a store of a newer schema, saying why nothing reaches it', async () => {
    const s = await bigSession();
    cluster.psql('INSERT INTO acode_schema (version) VALUES (99)', s.database);
    const ran = await s.run(['run', 'spec.yaml']);
    expect(ran.code, ran.stderr).toBe(0);
    // The run ended before a second attempt: its last line says why, with no retry to come.
    expect(ran.stderr).toMatch(/sync: DEGRADED — \d+ events? pending · last attempt 0 s ago · the store's schema is newer than this acode\n/);
    const listed = await s.run(['sessions', 'list', '--remote']);
    expect(listed.code).toBe(1);
    expect(listed.stderr).toContain("the team store's schema is at version 99, newer than this acode knows (3)");
    // A resume works whatever the sync state: it says why, and runs on this home's lock alone.
    writeFileSync(join(s.cwd, 'budget.yaml'), chainSpec({ steps: 3, provider: 'scripted', budget: 40 }));
    const paused = await s.run(['run', 'budget.yaml', '--json'], { ACODE_REMOTE_URL: '' });
    expect(JSON.parse(paused.stdout)).toMatchObject({ status: 'paused' });
    const id = (JSON.parse(paused.stdout) as { session_id: string }).session_id;
    const resumed = await s.run(['resume', id, '--set', 'runtime.budgets.max_tokens=100000']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/acode: sync: DEGRADED — \d+ events pending · the team store's schema is at version 99, newer than this acode knows \(3\).*; resuming on this home's lock alone/);
  }, 90_000);

  it('refuses a wrong password on resume and run with the reason, never the password', async () => {
    const s = await bigSession();
    const wrong = 'Wr0ng-pass-b4c1d2e3f5';
    const env = { ACODE_REMOTE_URL: cluster.url(s.database, wrong) };
    const ran = await s.run(['run', 'spec.yaml'], env);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain('sync: DEGRADED');
    expect(ran.stderr).toContain('user name or password refused');
    const pulled = await s.run(['resume', 'feedfacecafebeef'], env);
    expect(pulled.code).toBe(1);
    expect(pulled.stderr).toMatch(/cannot reach the team store: the server at postgres:\/\/127\.0\.0\.1:\d+\/hostile\d+ refused the user name or password in ACODE_REMOTE_URL \(28P01\)/);
    for (const result of [ran, pulled]) expect(result.stdout + result.stderr).not.toContain(wrong.slice(0, 8));
  }, 60_000);

  it('keeps every event exactly once when a run is killed (kill -9) while its background push is mid-batch, then resumed and synced', async () => {
    const database = `hostile${++databases}`;
    cluster.psql(`CREATE DATABASE ${database}`);
    const cwd = tempDir();
    roots.push(cwd);
    const env = { ACODE_HOME: join(cwd, 'home'), ACODE_REMOTE_URL: cluster.url(database) };
    const run = async (args: readonly string[]) => {
      const result = await runCli(args, { cwd, env });
      outputs.push(result);
      return result;
    };
    expect((await run(['remote', 'init'])).code).toBe(0);
    // Every INSERT into acode_events waits in the store, saying (through sequences, which no
    // rollback takes back) that it began and which ids it carries. The run's first push is held
    // until the run has appended 1,600 events more, so its next push is several batches of 500 —
    // and the kill lands inside one of its middle batches: one stored before it, one behind it.
    cluster.psql(
      `CREATE SEQUENCE batches_begun; CREATE SEQUENCE batch_first MINVALUE 0; CREATE SEQUENCE batch_last MINVALUE 0; CREATE SEQUENCE release_first MINVALUE 0 START 0; CREATE SEQUENCE slow_past MINVALUE 0 START 0;
       CREATE FUNCTION slow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
         PERFORM setval('batch_first', (SELECT min(event_id) FROM inserted)); PERFORM setval('batch_last', (SELECT max(event_id) FROM inserted));
         IF nextval('batches_begun') = 1 THEN
           WHILE (SELECT last_value FROM release_first) = 0 LOOP PERFORM pg_sleep(0.05); END LOOP;
         ELSIF (SELECT min(event_id) FROM inserted) > (SELECT last_value FROM slow_past) THEN
           PERFORM pg_sleep(2);
         END IF;
         RETURN NULL; END $$;
       CREATE TRIGGER slow AFTER INSERT ON acode_events REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION slow();`,
      database,
    );
    const steps = 4000;
    writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps, provider: 'scripted', scripted: '  scripted:\n    latency_ms: 3' }));
    // Its own process group, killed whole: nothing of the run outlives the kill.
    const child = spawn(process.execPath, [cliPath, 'run', 'spec.yaml'], { cwd, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    groups.push(child.pid!);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const closed = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
    const inFlight = () => cluster.psql(`SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND query LIKE 'INSERT INTO acode_events%'`, database);
    const sessionId = () => /session ([0-9a-f]{16})/.exec(stderr)?.[1];
    const log = () => join(env.ACODE_HOME, 'sessions', sessionId()!, 'events.jsonl');
    const state = () => cluster.psql(`SELECT (SELECT last_value FROM batches_begun) || '|' || (SELECT last_value FROM batch_first) || '|' || (SELECT last_value FROM batch_last) || '|' || (SELECT count(*) FROM acode_events)`, database).split('|').map(Number) as [number, number, number, number];
    const tail = () => stderr.slice(-400);
    const logged = () => fenceEvents(readEventLog(log()));
    // The first push's first batch waits in the store: that push read no event past `read` (the log's end now).
    let [begun, first, last] = state();
    for (let waited = 0; child.exitCode === null && !(begun === 1 && inFlight() === '1') && waited < 60_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      [begun, first, last] = state();
    }
    expect(child.exitCode, `the run ended before its first push was held: ${tail()}`).toBeNull();
    const read = Math.max(...logged().map((e) => e.event_id));
    // Held until the run has appended 1,600 events past it: the next push reads them all (up to
    // `appended` at least), so it is four batches or more, beginning at or below read + 1.
    for (let waited = 0; child.exitCode === null && logged().filter((e) => e.event_id > read).length < 1600 && waited < 60_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(child.exitCode, `the run ended before it was 1,600 events past its first push: ${tail()}`).toBeNull();
    const appended = Math.max(...logged().map((e) => e.event_id));
    // The rest of the first push goes through at once; the next one's batches wait 2 s each.
    cluster.psql(`SELECT setval('slow_past', ${read}); SELECT setval('release_first', 1)`, database);
    // A batch of that next push waits in the store that is not its first (it begins past read + 1:
    // an earlier batch of the same push was stored) and has a batch of it behind (it ends 500 or
    // more before `appended`), the run still running.
    const midPush = () => begun > 1 && first > read + 1 && last + 500 <= appended && last - first + 1 === 500 && inFlight() === '1';
    for (let waited = 0; child.exitCode === null && !midPush() && waited < 90_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      [begun, first, last] = state();
    }
    expect(child.exitCode, `the run ended before a middle batch of its push was caught in flight (${begun} batches begun): ${tail()}`).toBeNull();
    expect(midPush()).toBe(true);
    killGroup(child.pid!);
    expect(await closed).toBe('SIGKILL');
    const id = sessionId()!;
    expect(readEventLog(log()).some((e) => e.type === 'session_completed')).toBe(false);
    // That batch is still committed by the server (its client is gone, not its statement): the
    // store now holds events the cursor does not cover — what a resend must not double.
    for (let waited = 0; inFlight() !== '0' && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    const cursor = JSON.parse(readFileSync(join(env.ACODE_HOME, 'sessions', id, 'sync-cursor.json'), 'utf8')) as { event_id: number };
    expect(Number(cluster.psql(`SELECT count(*) FROM acode_events WHERE session_id = '${id}' AND event_id > ${cursor.event_id}`, database))).toBeGreaterThan(0);

    cluster.psql('DROP TRIGGER slow ON acode_events', database);
    const resumed = await run(['resume', id, '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'completed', steps_total: steps });
    const synced = await run(['sync']);
    expect(synced.code, synced.stderr).toBe(0);
    // The local log as the replicator pushes it (epoch-fenced), against the store: the same (session, event) pairs, each once.
    const local = fenceEvents(readEventLog(log()));
    expect(local.some((e) => e.type === 'session_completed')).toBe(true);
    const want = local.map((e) => `${id}:${e.event_id}:${e.epoch ?? 0}`).sort();
    const have = cluster.psql(`SELECT string_agg(session_id || ':' || event_id || ':' || epoch, ' ') FROM acode_events`, database).split(' ').sort();
    expect(have.length).toBe(want.length);
    expect(new Set(have).size).toBe(have.length);
    expect(have).toEqual(want);
    expect(cluster.psql(`SELECT count(*) || '|' || count(DISTINCT (session_id, event_id)) FROM acode_events`, database)).toBe(`${local.length}|${local.length}`);
  }, 180_000);

  it('leaves the password nowhere in any output', () => {
    for (const result of outputs) expect(result.stdout + result.stderr).not.toContain(cluster.password.slice(0, 8));
    expect(outputs.length).toBeGreaterThan(10);
  });
});
