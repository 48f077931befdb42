import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, runCli } from '../helpers/cli.js';
import { findPostgres, startPostgres, type PostgresCluster } from '../../scripts/postgres-cluster.js';
import { requireAllToolsVariable } from '../helpers/programs.js';
import { tempDir } from '../helpers/temp-dir.js';
import { TmuxTerminal } from '../helpers/tmux.js';

const found = findPostgres();
const skipReason = 'missing' in found ? found.missing : undefined;
if (skipReason && process.env[requireAllToolsVariable] === '1') throw new Error(`the browser's team scope test needs PostgreSQL (${skipReason}), and ${requireAllToolsVariable}=1 forbids skipping it: apt-get install postgresql`);
if (skipReason) console.warn(`browser team scope tests skipped: ${skipReason}`);

let cluster: PostgresCluster;
let terminal: TmuxTerminal | undefined;
afterEach(() => terminal?.close());

const spec = (crash: boolean) => `version: 0
name: team-browse
runtime:
  provider: scripted
${crash ? '  scripted:\n    faults:\n      - { step: 1, kind: crash }\n' : ''}agents:
  worker: { prompt: "You work." }
inputs:
  values:
    topic: durability
pattern:
  type: chain
  config:
    steps:
      - { agent: worker, input: "one {{ topic }}" }
      - { agent: worker, input: "two" }
      - { agent: worker, input: "three" }
`;

/** The built chunk holding the PostgreSQL driver (`pg`, bundled): the one with its SCRAM authentication. */
function pgChunk(): string {
  const dir = join(dirname(cliPath), 'chunks');
  const name = readdirSync(dir).find((file) => file.endsWith('.js') && readFileSync(join(dir, file), 'utf8').includes('SCRAM-SHA-256'));
  expect(name).toBeDefined();
  return name!;
}

/** A module hook that writes each module Node loads to `log`: `node --import <returned file>` reports what a run loaded. */
function loadLogger(root: string): string {
  writeFileSync(join(root, 'load-log.mjs'), "import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) { appendFileSync(process.env.ACODE_TEST_LOAD_LOG, url + '\\n'); return next(url, context); }\n");
  writeFileSync(join(root, 'register.mjs'), "import { register } from 'node:module';\nregister(new URL('./load-log.mjs', import.meta.url));\n");
  return join(root, 'register.mjs');
}

describe.skipIf(skipReason !== undefined)(skipReason ? `the browser's team scope — skipped: ${skipReason}` : "the browser's team scope (PostgreSQL, tmux)", () => {
  beforeAll(async () => {
    cluster = await startPostgres();
    cluster.psql('CREATE DATABASE team');
  }, 60_000);
  afterAll(async () => {
    await cluster?.remove();
  });

  it("loads pg only once the team scope is shown, lists the store's sessions with their host, keeps another machine's read-only, and resumes one here with Enter (pulled), then opens on it", async () => {
    const root = tempDir();
    const url = cluster.url('team');
    // Machine A: one session completed, one killed in step 2; both pushed to the store.
    const a = { cwd: join(root, 'a'), env: { ACODE_HOME: join(root, 'home-a'), ACODE_REMOTE_URL: url } };
    mkdirSync(a.cwd, { recursive: true });
    writeFileSync(join(a.cwd, 'done.yaml'), spec(false));
    writeFileSync(join(a.cwd, 'crash.yaml'), spec(true));
    expect((await runCli(['remote', 'init'], a)).code).toBe(0);
    expect((await runCli(['run', 'done.yaml', '--var', 'topic=alpha'], a)).code).toBe(0);
    expect((await runCli(['run', 'crash.yaml', '--var', 'topic=beta'], a)).signal).toBe('SIGKILL');
    const sync = await runCli(['sync'], a);
    expect(sync.code, sync.stderr).toBe(0);

    // Machine B: its own home, the same store, no sessions of its own.
    const bCwd = join(root, 'b');
    const bHome = join(root, 'home-b');
    mkdirSync(bCwd, { recursive: true });
    const loads = join(root, 'loaded.txt');
    writeFileSync(loads, '');
    terminal = new TmuxTerminal(bCwd, { ACODE_HOME: bHome, ACODE_REMOTE_URL: url, ACODE_TEST_LOAD_LOG: loads }, { columns: 130, rows: 32 });
    terminal.run(`node --import ${loadLogger(root)} ${cliPath}; echo "EXIT=$?"`);
    await terminal.waitFor((s) => s.includes('0 sessions') && s.includes('scope all directories'));
    // The browser with a team store configured, its sync line read (after 300 ms): `pg` not loaded.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const driver = pgChunk();
    expect(readFileSync(loads, 'utf8')).toContain('/dist/cli.js');
    expect(readFileSync(loads, 'utf8')).not.toContain(driver);
    terminal.press('s');
    const host = hostname();
    const team = (s: string) => s.includes('scope team store') && s.includes("other machines' sessions are read-only: Enter resumes one here");
    let screen = await terminal.waitFor((s) => team(s) && /HOST/.test(s) && (s.match(/team-browse/g) ?? []).length >= 2);
    expect(screen).toMatch(new RegExp(`[0-9a-f]{8} team-browse · topic=alpha +completed +3/3 .* ${host}`));
    // Killed, its lease lapsed (its pid here is gone): interrupted, as a local killed session is listed.
    expect(screen).toMatch(new RegExp(`[0-9a-f]{8} team-browse · topic=beta +interrupted +1/3 .* ${host}`));
    expect(screen).not.toContain(cluster.password);
    expect(readFileSync(loads, 'utf8')).toContain(driver); // loaded once the team scope was shown

    // Select the killed one: the details pane says it is read-only here; d does nothing to it.
    const killedRow = screen.split('\n').findIndex((line) => line.includes('topic=beta'));
    const selectedRow = screen.split('\n').findIndex((line) => line.startsWith('❯'));
    terminal.press(...Array<string>(Math.max(0, killedRow - selectedRow)).fill('j'));
    screen = await terminal.waitFor((s) => /❯ [0-9a-f]{8} team-browse · topic=beta/.test(s) && s.includes('read-only here: Enter resumes it here'));
    const id = /❯ ([0-9a-f]{8}) team-browse · topic=beta/.exec(screen)![1]!;
    expect(screen).toMatch(new RegExp(`team store running · last ran on host ${host} · \\d+ events in the store`));
    terminal.press('d');
    await terminal.waitFor((s) => s.replace(/\s+/g, ' ').includes(`session ${id} is the team store's (it last ran on host ${host}): read-only here`));
    expect(terminal.screen()).not.toContain('[y/N]');
    expect(existsSync(join(bHome, 'sessions'))).toBe(false); // nothing pulled yet

    // Enter: resume it here, which pulls it; the run ends, the browser opens on it among the local sessions.
    terminal.press('Enter');
    screen = await terminal.waitFor((s) => new RegExp(`Resume session ${id}[0-9a-f]{8} here\\?`).test(s) && s.includes('Enter start'));
    expect(screen).toContain(`it last ran on host ${host}`);
    terminal.press('Enter');
    screen = await terminal.waitFor((s) => s.includes(`the resume of ${id} ended (exit 0)`) && new RegExp(`❯ ${id} team-browse +completed +3/3`).test(s), 30_000);
    expect(screen).toContain('scope all directories');
    terminal.press('q');
    screen = await terminal.waitFor((s) => /EXIT=\d+/.test(s));
    expect(screen).toContain('EXIT=0');
    expect(screen).toContain(`pulled session ${id}`);
    expect(screen).not.toContain(cluster.password);
  }, 120_000);
});
