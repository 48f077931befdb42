import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainSpec } from '../helpers/chain-spec.js';
import { runCli, startCli, type CliResult } from '../helpers/cli.js';
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

  it('leaves the password nowhere in any output', () => {
    for (const result of outputs) expect(result.stdout + result.stderr).not.toContain(cluster.password.slice(0, 8));
    expect(outputs.length).toBeGreaterThan(10);
  });
});
