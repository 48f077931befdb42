import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandContext } from '../../source/commands/command-context.js';
import { createSessionSource } from '../../source/commands/browser-source.js';
import { createBrowserStore } from '../../source/state/browser-store.js';
import { BrowserApp } from '../../source/ui/browser/browser-app.js';
import { browserBindings, stepViewBindings } from '../../source/ui/keys/bindings.js';
import { generatedStore } from '../helpers/browser-fixture.js';
import { keys, renderInk } from '../helpers/ink.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const now = Date.parse('2026-02-01T00:00:00Z');
const flat = (frame: string) => frame.replace(/\s+/g, ' ');

/** The browser as `acode` opens it, every row loaded. */
async function open(count = 14) {
  const fixture = generatedStore(count);
  const source = await createSessionSource(fixture.ctx);
  const store = createBrowserStore(source, fixture.cwd);
  const ui = renderInk(<BrowserApp store={store} now={now} />);
  const rows = await source.poll();
  if (rows) store.getState().replaceRows(rows);
  return { ...fixture, store, ui };
}

const spec = (crash: boolean) => `version: 0
name: launch-demo
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

/** A home with real sessions of one workflow made by the built CLI: one completed (topic=alpha), one killed in step 2 (topic=beta). */
async function realStore() {
  const root = tempDir();
  const cwd = join(root, 'project');
  const home = join(root, 'home');
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(cwd, 'done.yaml'), spec(false));
  writeFileSync(join(cwd, 'crash.yaml'), spec(true));
  const env = { ACODE_HOME: home };
  expect((await runCli(['run', 'done.yaml', '--var', 'topic=alpha'], { cwd, env })).code).toBe(0);
  expect((await runCli(['run', 'crash.yaml', '--var', 'topic=beta'], { cwd, env })).signal).toBe('SIGKILL');
  const ctx: CommandContext = { stdout: process.stdout, stderr: process.stderr, interactive: false, color: false, env, cwd, hardExit: () => { throw new Error('hardExit in a test'); }, confirm: async () => false };
  const source = await createSessionSource(ctx);
  const store = createBrowserStore(source, cwd);
  const ui = renderInk(<BrowserApp store={store} now={now} />);
  const rows = await source.poll();
  if (rows) store.getState().replaceRows(rows);
  return { store, ui };
}

/**
 * Waits up to 20 s for a frame: the first plan loads the resume (or fork) machinery, which takes
 * longer than the helper's 2 s under a busy test run.
 */
async function slowFrame(ui: { frame(): string }, predicate: (frame: string) => boolean): Promise<string> {
  const deadline = Date.now() + 20_000;
  while (!predicate(ui.frame())) {
    if (Date.now() > deadline) throw new Error(`frame never matched; last frame:\n${ui.frame()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return ui.frame();
}

/** Selects the first visible row with `status` (j presses, as a person would). */
async function selectStatus(store: Awaited<ReturnType<typeof open>>['store'], ui: Awaited<ReturnType<typeof open>>['ui'], status: string, resumable?: boolean) {
  const index = store.getState().visible.findIndex((row) => row.status === status && (resumable === undefined || row.resumable === resumable));
  expect(index).toBeGreaterThanOrEqual(0);
  for (let i = 0; i < index; i++) {
    ui.stdin.write('j');
    await ui.waitForFrame(() => store.getState().selected === i + 1);
  }
  return store.getState().visible[index]!;
}

describe('one key per meaning in the browser', () => {
  it('gives r one meaning everywhere (resume) and refresh its own key, in the bindings, the footer and the help', async () => {
    const withR = [...Object.entries(browserBindings), ...Object.entries(stepViewBindings)].filter(([, b]) => (b.keys as readonly string[]).includes('r'));
    expect(withR.map(([name]) => name).sort()).toEqual(['browser.resume', 'steps.resume']);
    expect(browserBindings['browser.refresh'].keys).toEqual(['ctrl+r']);
    const { ui } = await open(3);
    expect(ui.frame()).toContain('↑↓ move · Enter resume · → steps · r resume');
    expect(ui.frame()).not.toContain('refresh');
    ui.stdin.write('?');
    const help = await ui.waitForFrame((f) => f.includes('Keys'));
    expect(help).toMatch(/Ctrl\+R +read the session list again now/);
    expect(help).toMatch(/→ l +the selected session's steps/);
  });

  it('Enter on a resumable session goes straight to its continuation plan; Enter there starts the resume', async () => {
    const { ui, store } = await realStore();
    const row = store.getState().visible.find((r) => r.resumable)!;
    expect(row.variables.topic).toBe('beta'); // the killed one
    await selectStatus(store, ui, row.status, true);
    ui.stdin.write(keys.enter);
    const frame = await slowFrame(ui, (f) => f.includes('Enter start'));
    expect(frame).toContain(`Resume session ${row.session_id}?`);
    expect(frame).toMatch(/in progress: +2 worker, attempt 1 → retry as attempt 2/);
    expect(store.getState().stepView.getState().session).toBeNull(); // no step view on the way
    ui.stdin.write(keys.enter);
    await ui.waitForFrame(() => store.getState().launch !== null);
    expect(store.getState().launch).toEqual({ action: 'resume', id: row.session_id });
  });

  it('Enter on a finished session opens its steps, whose title says why it cannot be resumed; r on the list says so too', async () => {
    const { ui, store } = await open();
    const row = await selectStatus(store, ui, 'completed');
    ui.stdin.write('r');
    const said = await ui.waitForFrame((f) => f.includes('nothing is left to resume'));
    expect(flat(said)).toContain(`session ${row.session_id.slice(0, 8)} completed: nothing is left to resume`);
    expect(store.getState().overlay).toBeNull();
    ui.stdin.write(keys.enter);
    const steps = await ui.waitForFrame((f) => f.includes(`session ${row.session_id}`) && f.includes('Esc back'));
    expect(steps).toContain('completed — nothing to resume; f forks it from the selected step to run again');
    expect(store.getState().overlay).toBeNull();
  });

  it('says at which step and why a cancelled or failed session stopped, in the step view title', async () => {
    const { ui, store } = await open();
    const row = await selectStatus(store, ui, 'failed');
    ui.stdin.write(keys.enter);
    const steps = await ui.waitForFrame((f) => f.includes(`session ${row.session_id}`) && f.includes('Esc back'));
    expect(steps).toMatch(/failed at step \d+ \(provider failed\) — a resume cannot continue it/);
  });

  it('→ opens the steps of a resumable session without planning its resume', async () => {
    const { ui, store } = await open();
    const row = await selectStatus(store, ui, 'paused', true);
    ui.stdin.write(keys.right);
    const steps = await ui.waitForFrame((f) => f.includes(`session ${row.session_id}`) && f.includes('Esc back'));
    expect(steps).toContain('resumable: r resumes it, f forks it from the selected step');
    expect(store.getState().overlay).toBeNull();
  });
});

describe('f on a step forks the session from it', () => {
  it('shows what the fork reuses and runs, named by the step as acode fork --from-step takes it; Enter launches it, Esc goes back to the steps', async () => {
    const { ui, store } = await realStore();
    const row = await selectStatus(store, ui, 'completed');
    ui.stdin.write(keys.enter);
    await ui.waitForFrame(() => store.getState().stepView.getState().session?.id === row.session_id);
    ui.stdin.write('j');
    await ui.waitForFrame(() => store.getState().stepView.getState().selected === 1);
    ui.stdin.write('f');
    const plan = await slowFrame(ui, (f) => f.includes('Enter start'));
    expect(plan).toContain(`Fork session ${row.session_id} from step 2?`);
    expect(plan).toContain('a new session, reusing 1 of 3 steps; this one stays as it is');
    expect(plan).toMatch(/↷ step 1 +worker +reused: completed/);
    expect(plan).toMatch(/▶ step 2 +worker +runs: /);
    expect(plan).toMatch(/▶ step 3 +worker +runs: /);
    ui.stdin.write(keys.escape);
    await ui.waitForFrame((f) => !f.includes('Enter start') && f.includes('Esc back'));
    expect(store.getState().stepView.getState().selected).toBe(1);
    ui.stdin.write('f');
    await slowFrame(ui, (f) => f.includes('Enter start'));
    ui.stdin.write(keys.enter);
    await ui.waitForFrame(() => store.getState().launch !== null);
    expect(store.getState().launch).toEqual({ action: 'fork', id: row.session_id, step: '2' });
  });

  it('names each step of the fork plan as acode fork --dry-run does (industry/1, not the title "industry step 1")', async () => {
    const cwd = tempDir();
    const env = { ACODE_HOME: join(cwd, 'home') };
    writeFileSync(join(cwd, 'par.yaml'), `version: 0
name: par
runtime:
  provider: scripted
agents:
  worker: { prompt: "You work." }
pattern:
  type: parallel
  config:
    branches:
      - id: industry
        steps:
          - { agent: worker, input: "one" }
          - { agent: worker, input: "two" }
      - id: academic
        steps:
          - { agent: worker, input: "three" }
    reduce: { agent: worker, input: "combine" }
`);
    const run = await runCli(['run', 'par.yaml', '--json'], { cwd, env });
    expect(run.code, run.stderr).toBe(0);
    const id = (JSON.parse(run.stdout) as { session_id: string }).session_id;
    const ctx: CommandContext = { stdout: process.stdout, stderr: process.stderr, interactive: false, color: false, env, cwd, hardExit: () => { throw new Error('hardExit in a test'); }, confirm: async () => false };
    const lines = await (await createSessionSource(ctx)).forkPlan(id, 'industry/2');
    const dry = await runCli(['fork', id, '--from-step', 'industry/2', '--dry-run'], { cwd, env });
    expect(lines.slice(1)).toEqual(dry.stdout.trimEnd().split('\n').slice(1).map((line) => line.trimStart()));
    expect(lines[1]).toMatch(/^↷ step industry\/1 +worker +reused/);
    expect(lines[2]).toMatch(/^▶ step industry\/2 +worker +runs/);
  });
});

describe('rows of one workflow told apart', () => {
  it('adds the variables to the workflow cell when rows on screen share a workflow name, where there is room', async () => {
    const { ui, store } = await realStore();
    const frame = await ui.waitForFrame((f) => f.includes('· topic='));
    const rows = frame.split('\n').filter((line) => /^[ ❯] [0-9a-f]{8} /.test(line));
    expect(rows).toHaveLength(2);
    for (const row of store.getState().visible) {
      expect(rows.find((l) => l.includes(row.session_id.slice(0, 8)))).toContain(`launch-demo · topic=${String(row.variables.topic)} `);
      // Each keeps the start of its first step's input, the session killed in its second step too.
      expect(row.first_input).toBe(`one ${String(row.variables.topic)}`);
    }
  });

  it("quotes the start of each one's first input when no variables tell them apart", async () => {
    const root = tempDir();
    const cwd = join(root, 'project');
    const env = { ACODE_HOME: join(root, 'home') };
    mkdirSync(cwd, { recursive: true });
    const notes = (input: string) => `version: 0\nname: notes\nruntime:\n  provider: scripted\nagents:\n  worker: { prompt: "You work." }\npattern:\n  type: chain\n  config:\n    steps:\n      - { agent: worker, input: "${input}" }\n`;
    writeFileSync(join(cwd, 'board.yaml'), notes('Summarise the quarterly report   for the board, in five bullets'));
    writeFileSync(join(cwd, 'launch.yaml'), notes('Draft the launch email'));
    expect((await runCli(['run', 'board.yaml'], { cwd, env })).code).toBe(0);
    expect((await runCli(['run', 'launch.yaml'], { cwd, env })).code).toBe(0);
    // The index row carries it: the first 40 characters, whitespace as one space.
    const listed = JSON.parse((await runCli(['sessions', 'list', '--json'], { cwd, env })).stdout) as { first_input?: string }[];
    expect(listed.map((row) => row.first_input).sort()).toEqual(['Draft the launch email', 'Summarise the quarterly report for the b…']);
    const ctx: CommandContext = { stdout: process.stdout, stderr: process.stderr, interactive: false, color: false, env, cwd, hardExit: () => { throw new Error('hardExit in a test'); }, confirm: async () => false };
    const source = await createSessionSource(ctx);
    const store = createBrowserStore(source, cwd);
    const ui = renderInk(<BrowserApp store={store} now={now} />);
    const rows = await source.poll();
    if (rows) store.getState().replaceRows(rows);
    // At 100 columns the workflow column widens by half the spare room: the quote is cut there.
    const frame = await ui.waitForFrame((f) => f.includes('“Draft'));
    expect(frame).toMatch(/ notes · “Draft the launch em/);
    expect(frame).toMatch(/ notes · “Summarise the quart/);
  });

  it('keeps a lone workflow name as it is', async () => {
    const { ui } = await open(1);
    const frame = await ui.waitForFrame((f) => f.includes('1 shown'));
    expect(frame).not.toContain('· topic=');
  });
});

describe('the s key and the team scope', () => {
  it('cycles this directory → all local → this directory without a team store, saying once why the team scope is skipped', async () => {
    const { ui, store } = await open(6);
    expect(ui.frame()).toContain('scope this directory');
    ui.stdin.write('s');
    await ui.waitForFrame((f) => f.includes('scope all directories'));
    ui.stdin.write('s');
    const skipped = await ui.waitForFrame((f) => f.includes('scope this directory'));
    expect(flat(skipped)).toContain('no team scope: set ACODE_REMOTE_URL to a team store (postgres://…) to list its sessions');
    ui.stdin.write('s');
    await ui.waitForFrame((f) => f.includes('scope all directories'));
    ui.stdin.write('s');
    const again = await ui.waitForFrame((f) => f.includes('scope this directory'));
    expect(again).not.toContain('no team scope'); // said once
    expect(store.getState().team.state).toBe('idle'); // nothing was read
  });

  it('says the store cannot be reached in the team scope, and the local scopes keep working', async () => {
    const fixture = generatedStore(6);
    // A port nothing listens on: the connection is refused.
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    fixture.ctx.env.ACODE_REMOTE_URL = `postgres://acode:Sekrit-pass-123456@127.0.0.1:${closed}/team`;
    const source = await createSessionSource(fixture.ctx);
    const store = createBrowserStore(source, fixture.cwd);
    const ui = renderInk(<BrowserApp store={store} now={now} />);
    const rows = await source.poll();
    if (rows) store.getState().replaceRows(rows);
    ui.stdin.write('s');
    await ui.waitForFrame((f) => f.includes('scope all directories'));
    ui.stdin.write('s');
    const down = await ui.waitForFrame((f) => f.includes('scope team store') && f.includes('team store: cannot reach'));
    expect(flat(down)).toMatch(/team store: cannot reach the team store: .*connection refused.* — the local scopes \(s\) work as ever; Ctrl\+R tries again/);
    expect(down).not.toContain('Sekrit-pass');
    expect(down).toContain('no sessions match');
    ui.stdin.write('s');
    const back = await ui.waitForFrame((f) => f.includes('scope this directory'));
    expect(back).not.toContain('team store: cannot reach');
    expect(store.getState().visible.length).toBe(6);
    ui.stdin.write('j');
    await ui.waitForFrame(() => store.getState().selected === 1);
  });
});

describe('r on a failed session in the list', () => {
  it('says why in words, not as a stop-reason code', async () => {
    const { ui, store } = await open();
    const row = await selectStatus(store, ui, 'failed');
    ui.stdin.write('r');
    const said = flat(await ui.waitForFrame((f) => f.includes('a resume cannot continue')));
    expect(said).toContain(`session ${row.session_id.slice(0, 8)} failed (provider failed): a resume cannot continue a failed session`);
    expect(said).not.toContain('(provider_error)');
  });
});
