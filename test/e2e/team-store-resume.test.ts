import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chainSpec } from '../helpers/chain-spec.js';
import { runCli, startCli, type CliResult } from '../helpers/cli.js';
import { openAiServerPerTest, type OpenAiTestServer } from '../helpers/openai-server.js';
import { findPostgres, startPostgres, type PostgresCluster } from '../../scripts/postgres-cluster.js';
import { requireAllToolsVariable } from '../helpers/programs.js';
import { tempDir } from '../helpers/temp-dir.js';

const found = findPostgres();
const skipReason = 'missing' in found ? found.missing : undefined;
if (skipReason && process.env[requireAllToolsVariable] === '1') throw new Error(`the team store tests need PostgreSQL (${skipReason}), and ${requireAllToolsVariable}=1 forbids skipping them: apt-get install postgresql`);
if (skipReason) console.warn(`team store resume tests skipped: ${skipReason}`);

const steps = 5;
const fixture = openAiServerPerTest();
let server: OpenAiTestServer;
let baseUrl: string;
let cluster: PostgresCluster;
let databases = 0;
/** Every output of every acode run here: checked for the password at the end. */
const outputs: CliResult[] = [];
const roots: string[] = [];
beforeEach(() => ({ server, baseUrl } = fixture.current()));

/** Two machines sharing one team store: each its own ACODE_HOME and project folder; A has the spec. */
function machines() {
  const database = `resume${++databases}`;
  cluster.psql(`CREATE DATABASE ${database}`);
  const root = tempDir();
  roots.push(root);
  const machine = (name: string) => {
    const cwd = join(root, name);
    mkdirSync(cwd, { recursive: true });
    const env = { ACODE_HOME: join(root, `home-${name}`), ACODE_REMOTE_URL: cluster.url(database), OPENAI_API_KEY: 'sk-test-secret-key-123' };
    const run = async (args: readonly string[], extra: Record<string, string> = {}) => {
      const result = await runCli(args, { cwd, env: { ...env, ...extra } });
      outputs.push(result);
      return result;
    };
    const start = (args: readonly string[]) => startCli(args, { cwd, env });
    return { cwd, home: env.ACODE_HOME, env, run, start };
  };
  const a = machine('a');
  writeFileSync(join(a.cwd, 'spec.yaml'), chainSpec({ steps, provider: 'openai', host: baseUrl }));
  return { database, a, b: machine('b') };
}

/** The artifact an uninterrupted run produces, for byte comparison. */
async function uninterruptedArtifact(): Promise<Buffer> {
  const cwd = tempDir();
  roots.push(cwd);
  writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps, provider: 'openai', host: baseUrl }));
  const result = await runCli(['run', 'spec.yaml'], { cwd, env: { ACODE_HOME: join(cwd, 'home'), OPENAI_API_KEY: 'sk-test-secret-key-123' } });
  expect(result.code, result.stderr).toBe(0);
  server.requests.length = 0;
  return readFileSync(join(cwd, 'artifacts/out/report.md'));
}

/** Home A runs the session until the model is asked for step `k`, is killed (kill -9) there, then pushes what it had. */
async function killedOnA(world: ReturnType<typeof machines>, k: number): Promise<string> {
  const { a } = world;
  expect((await a.run(['remote', 'init'])).code).toBe(0);
  server.handler = (r) => (r.step === k ? { kind: 'hang' } : { kind: 'answer' });
  const run = a.start(['run', 'spec.yaml']);
  await server.waitFor((r) => r.step === k);
  run.child.kill('SIGKILL');
  const killed = await run.done;
  outputs.push(killed);
  expect(killed.signal).toBe('SIGKILL');
  server.handler = () => ({ kind: 'answer' });
  const id = /session ([0-9a-f]{16})/.exec(killed.stderr)![1]!;
  // Back on its feet, A pushes what the kill left pending.
  const sync = await a.run(['sync']);
  expect(sync.code, sync.stderr).toBe(0);
  return id;
}

const storeCount = (world: ReturnType<typeof machines>, sql: string) => cluster.psql(sql, world.database);

describe.skipIf(skipReason !== undefined)(skipReason ? `team store resume — skipped: ${skipReason}` : 'team store: resume on another machine', () => {
  beforeAll(async () => {
    cluster = await startPostgres();
  }, 60_000);

  afterAll(async () => {
    await cluster?.remove();
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  }, 30_000);

  it('resumes on home B from the store a session killed on home A: no finished step asked again, the artifact byte-identical', async () => {
    const expected = await uninterruptedArtifact();
    const world = machines();
    const id = await killedOnA(world, 2);
    server.requests.length = 0;

    // B has never seen the session, nor the spec: it runs in the folder --cwd names.
    const resumed = await world.b.run(['resume', id, '--json', '--cwd', world.b.cwd]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(new RegExp(`pulled session ${id} from the team store postgres://127\\.0\\.0\\.1:\\d+/${world.database} \\(\\d+ events, \\d+ snapshots?, last pushed by ${hostname()}\\); it runs in ${world.b.cwd} \\(it ran in ${world.a.cwd} on ${hostname()}\\)`));
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'completed', steps_total: steps, steps_executed: steps - 2, steps_skipped: 2 });
    // Steps 0 and 1 finished on A: B asked the model for steps 2, 3 and 4 only, once each.
    expect(server.countByStep()).toEqual({ 2: 1, 3: 1, 4: 1 });
    expect(readFileSync(join(world.b.cwd, 'artifacts/out/report.md')).equals(expected)).toBe(true);
    expect(existsSync(join(world.a.cwd, 'artifacts'))).toBe(false);

    // B pushed its events as it ran: the store holds the whole session once, completed, last on B's host.
    const local = readFileSync(join(world.b.home, 'sessions', id, 'events.jsonl'), 'utf8').trim().split('\n');
    expect(storeCount(world, `SELECT count(*), count(DISTINCT event_id) FROM acode_events WHERE session_id = '${id}'`)).toBe(`${local.length}|${local.length}`);
    expect(storeCount(world, `SELECT status, record->>'cwd' FROM acode_sessions WHERE id = '${id}'`)).toBe(`completed|${world.b.cwd}`);
    expect(storeCount(world, `SELECT count(*) FROM acode_leases WHERE session_id = '${id}'`)).toBe('0');
    const listed = JSON.parse((await world.a.run(['sessions', 'list', '--remote', '--json'])).stdout) as { session_id: string; status: string }[];
    expect(listed).toMatchObject([{ session_id: id, status: 'completed' }]);

    // Back on A, the session is finished too: A pulls what B did, and says there is nothing to resume.
    const again = await world.a.run(['resume', id]);
    expect(again.code).toBe(15);
    expect(again.stderr).toContain(`the team store holds more of session ${id} than this home (it ran on ${hostname()} since): pulled again`);
    expect(again.stderr).toContain(`session ${id} is completed`);
  }, 90_000);

  it('resumes in the folder it ran in when this machine has it, else in the folder the resume starts in', async () => {
    const world = machines();
    const id = await killedOnA(world, 3);
    rmSync(world.a.cwd, { recursive: true });
    const resumed = await world.b.run(['resume', id.slice(0, 6), '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`it runs in ${world.b.cwd} (it ran in ${world.a.cwd} on ${hostname()})`);
    expect(existsSync(join(world.b.cwd, 'artifacts/out/report.md'))).toBe(true);
    expect(server.countByStep()).toMatchObject({ 0: 1, 1: 1, 2: 1, 3: 2, 4: 1 });
  }, 90_000);

  it('lets exactly one of two homes racing to resume a session run it; the other exits 16 naming the host', async () => {
    const world = machines();
    const id = await killedOnA(world, 2);
    // Each step takes a while, so the winner still runs (and holds the lease) when the other asks.
    server.latencyMs = 400;
    const [onA, onB] = await Promise.all([world.a.start(['resume', id, '--json']).done, world.b.start(['resume', id, '--json']).done]);
    outputs.push(onA, onB);
    const codes = [onA.code, onB.code].sort();
    expect(codes, `${onA.stderr}\n${onB.stderr}`).toEqual([0, 16]);
    const loser = onA.code === 16 ? onA : onB;
    const winner = onA.code === 0 ? world.a : world.b;
    // --json: the refusal is a JSON object on stderr, with its code and exit.
    const refusal = JSON.parse(loser.stderr) as { error: { code: string; exit: number; message: string } };
    expect(refusal.error).toMatchObject({ code: 'ACODE-RESUME-003', exit: 16 });
    expect(refusal.error.message).toMatch(new RegExp(`^session ${id} is in use on host ${hostname()} \\(pid \\d+, ACODE_HOME ${winner.home}\\)`));
    // Step 2 was asked by the killed run and by the winner; every other step once.
    expect(server.countByStep()).toEqual({ 0: 1, 1: 1, 2: 2, 3: 1, 4: 1 });
    // The loser wrote nothing: B, if it lost, never pulled the session.
    if (loser === onB) expect(existsSync(join(world.b.home, 'sessions', id))).toBe(false);
    expect(storeCount(world, `SELECT count(*), count(DISTINCT event_id) FROM acode_events WHERE session_id = '${id}'`)).toMatch(/^(\d+)\|\1$/);
    expect(storeCount(world, `SELECT status FROM acode_sessions WHERE id = '${id}'`)).toBe('completed');
  }, 90_000);

  it('refuses a remote row that is not an event, with a message, writing nothing', async () => {
    const world = machines();
    const id = await killedOnA(world, 2);
    storeCount(world, `UPDATE acode_events SET event = '{"type": "step_completed", "event_id": 3}' WHERE session_id = '${id}' AND event_id = 3`);
    const refused = await world.b.run(['resume', id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`ACODE-RESUME-005: session ${id} in the team store postgres://127.0.0.1:${cluster.port}/${world.database} cannot be pulled: its event 3 is not a whole event`);
    expect(refused.stderr).not.toMatch(/at .*\.js:\d+/);
    expect(existsSync(join(world.b.home, 'sessions', id))).toBe(false);
    // The lease it took went with the refusal: once the row is right again, the resume runs.
    expect(storeCount(world, `SELECT count(*) FROM acode_leases WHERE session_id = '${id}' AND home = '${world.b.home}'`)).toBe('0');
    storeCount(world, `UPDATE acode_events SET event = '"not an object"' WHERE session_id = '${id}' AND event_id = 3`);
    expect((await world.b.run(['resume', id])).stderr).toContain('its event 3 is not a whole event: not a JSON object');
    storeCount(world, `UPDATE acode_blobs SET bytes = 'x' WHERE hash IN (SELECT spec_json_blob FROM acode_sessions WHERE id = '${id}')`);
    storeCount(world, `DELETE FROM acode_events WHERE session_id = '${id}' AND event_id = 3`);
    expect((await world.b.run(['resume', id])).stderr).toMatch(/its snapshot [0-9a-f]{64} is damaged/);
  }, 90_000);

  it('names a session neither here nor in the store, and shows in a dry run what a resume would pull', async () => {
    const world = machines();
    const id = await killedOnA(world, 2);
    const none = await world.b.run(['resume', 'feedfacecafe']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`no session matches 'feedfacecafe' in ${world.b.home} nor in the team store`);
    const dry = await world.b.run(['resume', id, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(new RegExp(`dry run: session ${id} is not in this home; the resume would pull it from the team store .* \\(\\d+ events, running, last pushed by ${hostname()}\\)`));
    // --json: one object on stdout, as every other dry run (it printed the sentence).
    const dryJson = await world.b.run(['resume', id, '--dry-run', '--json']);
    expect(dryJson.code, dryJson.stderr).toBe(0);
    expect(JSON.parse(dryJson.stdout)).toMatchObject({ session_id: id, status: 'running', pull: { last_pushed_by: hostname() } });
    expect(existsSync(join(world.b.home, 'sessions', id))).toBe(false);
    const onA = await world.a.run(['resume', id, '--dry-run']);
    expect(onA.stdout).toContain('sync:            up to date ✓');
    const cwdHere = await world.a.run(['resume', id, '--cwd', '.']);
    expect(cwdHere.code).toBe(2);
    expect(cwdHere.stderr).toContain(`session ${id} is in this home already, and runs in its own folder`);
  }, 90_000);

  it('leaves the password nowhere in any output or file', () => {
    const secret = cluster.password;
    for (const result of outputs) expect(result.stdout + result.stderr).not.toContain(secret.slice(0, 8));
    for (const root of roots) {
      if (!existsSync(root)) continue;
      for (const entry of readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())) {
        expect(readFileSync(join(entry.parentPath, entry.name), 'latin1'), join(entry.parentPath, entry.name)).not.toContain(secret.slice(0, 8));
      }
    }
    expect(outputs.length).toBeGreaterThan(10);
  });
});
