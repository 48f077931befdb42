import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSessionSource } from '../../source/commands/browser-source.js';
import type { CommandContext } from '../../source/commands/command-context.js';
import { statusLabel } from '../../source/state/browser-rows.js';
import { cliPath, runCli } from '../helpers/cli.js';
import { hashFolder } from '../helpers/folder-hash.js';
import { parseAllSessionFiles } from '../helpers/session-files.js';
import { tempDir } from '../helpers/temp-dir.js';
import { TmuxTerminal } from '../helpers/tmux.js';

/** strands-cli's approval demo, offline: research → a `hitl` gate → analysis that reads the answer. */
const spec = `version: 0
name: gate
runtime:
  provider: scripted
  scripted:
    responses:
      analyst: "analysed with review: {{ steps[1].response }}"
agents:
  researcher: { prompt: "You research." }
  analyst: { prompt: "You analyse." }
pattern:
  type: chain
  config:
    steps:
      - { agent: researcher, input: "Research {{ topic }}" }
      - type: hitl
        prompt: "Review the research and approve proceeding to analysis."
        context_display: "### Research\\n{{ steps[0].response }}"
        default: approved
      - { agent: analyst, input: "Review: {{ steps[1].response }}" }
inputs:
  values: { topic: "durable agents" }
`;

function workspace() {
  const cwd = tempDir();
  const home = join(cwd, 'home');
  writeFileSync(join(cwd, 'gate.yaml'), spec);
  return { cwd, home, env: { ACODE_HOME: home } };
}

async function awaitingSession(ws: ReturnType<typeof workspace>) {
  const run = await runCli(['run', 'gate.yaml'], ws);
  expect(run.code).toBe(1);
  const [record] = parseAllSessionFiles(ws.home);
  expect(record!.checkpoint).toMatchObject({ status: 'awaiting_approval', steps_done: 1 });
  return { run, id: record!.session_id };
}

let terminal: TmuxTerminal | undefined;
afterEach(() => terminal?.close());

describe('an approval step', () => {
  it('waits in AWAITING_APPROVAL without a TTY, showing the prompt and how to answer', async () => {
    const ws = workspace();
    const { run, id } = await awaitingSession(ws);
    expect(run.stderr).toContain('◆ step 2/3 approval: Review the research and approve proceeding to analysis.');
    expect(run.stderr).toContain('### Research');
    expect(run.stderr).toContain(`Answer it with: acode resume ${id} (in a terminal), or add --approve, --response "…" or --reject`);
    const list = JSON.parse((await runCli(['sessions', 'list', '--resumable', '--json'], ws)).stdout) as { status: string }[];
    expect(list).toEqual([expect.objectContaining({ status: 'awaiting_approval' })]);

    // The browser lists it as waiting for a person, with the gate among its steps.
    const ctx = { env: ws.env, cwd: ws.cwd } as unknown as CommandContext;
    const source = await createSessionSource(ctx);
    expect(statusLabel(source.initial.rows[0]!)).toBe('to approve');
    expect(source.details(id)).toMatchObject({ damaged: null, steps: [{ agent: 'researcher', status: 'done' }, { agent: 'approval', status: 'awaiting' }, { agent: 'analyst', status: 'pending' }] });
  });

  it('is answered by --approve (the default response) and by --response (the given text)', async () => {
    const approved = workspace();
    const first = await awaitingSession(approved);
    const result = await runCli(['resume', first.id, '--approve', '--json'], approved);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'completed', steps_executed: 2, steps_skipped: 1 });
    const events = (await runCli(['sessions', 'history', first.id, '--json'], approved)).stdout;
    expect(JSON.parse(events)).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'approval_answered', decision: 'approved', response: 'approved' })]));

    const edited = workspace();
    const second = await awaitingSession(edited);
    expect((await runCli(['resume', second.id, '--response', 'focus on costs'], edited)).code).toBe(0);
    const history = JSON.parse((await runCli(['sessions', 'history', second.id, '--json'], edited)).stdout) as { type: string; step?: string; response?: string }[];
    expect(history.find((e) => e.type === 'step_completed' && e.step === '3')?.response).toBe('analysed with review: focus on costs');
  });

  it('shows no token counts: a person answered it, not a model', async () => {
    const ws = workspace();
    const run = await runCli(['run', 'gate.yaml', '--approve'], ws);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^✓ step 2\/3 approval \d+\.\ds$/m);
    expect(run.stderr).toMatch(/^✓ step 1\/3 researcher \d+\.\ds · \d+ in \/ \d+ out$/m);
    const id = /session ([0-9a-f]{16})/.exec(run.stderr)![1]!;
    const step = await runCli(['sessions', 'show', id, '--step', '2'], ws);
    expect(step.stdout).toMatch(/^elapsed +\d/m);
    expect(step.stdout).not.toMatch(/^tokens/m);
    expect((await runCli(['sessions', 'show', id, '--step', '1'], ws)).stdout).toMatch(/^tokens +\d+ in \/ \d+ out/m);
  });

  it('is rejected by --reject: the session is cancelled and cannot be resumed', async () => {
    const ws = workspace();
    const { id } = await awaitingSession(ws);
    const rejected = await runCli(['resume', id, '--reject'], ws);
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toContain('■ cancelled: step 2: the approval was rejected');
    expect(parseAllSessionFiles(ws.home)[0]!.checkpoint).toMatchObject({ status: 'cancelled', stop_reason: 'approval_rejected' });
    expect((await runCli(['resume', id, '--approve'], ws)).code).toBe(15);
  });

  it('refuses contradictory answers before touching anything', async () => {
    const ws = workspace();
    const { id } = await awaitingSession(ws);
    const before = hashFolder(ws.home);
    const result = await runCli(['resume', id, '--approve', '--reject'], ws);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--approve and --reject contradict each other');
    expect(hashFolder(ws.home)).toEqual(before);
  });

  it('is answered in the run view: e, a typed response, Enter', async () => {
    const ws = workspace();
    terminal = new TmuxTerminal(ws.cwd, { ACODE_HOME: ws.home, PATH: process.env.PATH ?? '' }, { columns: 110, rows: 30 });
    terminal.run(`node ${cliPath} run gate.yaml; echo "EXIT=$?"`);
    // Waits for the panel's last line: a capture can catch a frame half drawn.
    let screen = await terminal.waitFor((s) => s.includes('a approve (records "approved") · e edit a response · r reject'));
    expect(screen).toContain('approval needed · step 2');
    expect(screen).toContain('Review the research and approve proceeding to analysis.');
    terminal.press('e');
    await terminal.waitFor((s) => s.includes('response ›'));
    terminal.run('more on costs');
    screen = await terminal.waitFor((s) => /EXIT=\d+/.test(s));
    expect(screen).toContain('EXIT=0');
    expect(screen).toContain('✓ completed');
    const [session] = readdirSync(join(ws.home, 'sessions'));
    const history = JSON.parse((await runCli(['sessions', 'history', session!, '--json'], ws)).stdout) as { type: string; decision?: string; response?: string }[];
    expect(history.find((e) => e.type === 'approval_answered')).toMatchObject({ decision: 'edited', response: 'more on costs' });
  });

  it('names a workflow task by its id in messages, even a numeric one (task 2, not step 3)', async () => {
    const ws = workspace();
    writeFileSync(
      join(ws.cwd, 'wf.yaml'),
      'version: 0\nname: wf\nruntime: { provider: scripted }\nagents:\n  a: { prompt: "you" }\npattern:\n  type: workflow\n  config:\n    tasks:\n      - { id: "1", agent: a, input: "go" }\n      - { id: "2", type: hitl, prompt: "ok?", deps: ["1"] }\n',
    );
    const rejected = await runCli(['run', 'wf.yaml', '--reject'], ws);
    expect(rejected.stderr).toContain('■ cancelled: task 2: the approval was rejected');
    expect(rejected.stderr).not.toMatch(/step [0-9]/);
  });

  it('asks before r rejects: n keeps waiting, y cancels the session', async () => {
    const ws = workspace();
    terminal = new TmuxTerminal(ws.cwd, { ACODE_HOME: ws.home, PATH: process.env.PATH ?? '' }, { columns: 110, rows: 30 });
    terminal.run(`node ${cliPath} run gate.yaml; echo "EXIT=$?"`);
    await terminal.waitFor((s) => s.includes('a approve (records "approved") · e edit a response · r reject'));
    terminal.press('r');
    await terminal.waitFor((s) => s.includes('Reject cancels the session. Reject? y reject · n keep waiting'));
    terminal.press('n');
    await terminal.waitFor((s) => s.includes('a approve (records "approved") · e edit a response · r reject'));
    terminal.press('e');
    await terminal.waitFor((s) => s.includes('response ›') && s.includes('Enter submit · Esc cancel'));
    terminal.press('Escape');
    await terminal.waitFor((s) => s.includes('a approve (records "approved") · e edit a response · r reject'));
    terminal.press('r');
    await terminal.waitFor((s) => s.includes('Reject cancels the session'));
    terminal.press('y');
    const screen = await terminal.waitFor((s) => /EXIT=\d+/.test(s));
    expect(screen).toContain('EXIT=1');
    expect(parseAllSessionFiles(ws.home)[0]!.checkpoint).toMatchObject({ status: 'cancelled', stop_reason: 'approval_rejected' });
  });

  it('--approve answers the first gate; a person at the terminal answers the next one', async () => {
    const ws = workspace();
    const twoGates = spec.replace('      - { agent: analyst, input: "Review: {{ steps[1].response }}" }', '      - { type: approval, prompt: "Publish the analysis?" }\n      - { agent: analyst, input: "Review: {{ steps[1].response }}" }');
    writeFileSync(join(ws.cwd, 'gate.yaml'), twoGates);
    terminal = new TmuxTerminal(ws.cwd, { ACODE_HOME: ws.home, PATH: process.env.PATH ?? '' }, { columns: 110, rows: 30 });
    terminal.run(`node ${cliPath} run gate.yaml --approve; echo "EXIT=$?"`);
    const screen = await terminal.waitFor((s) => s.includes('a approve (records "approved") · e edit a response · r reject'));
    expect(screen).toContain('approval needed · step 3');
    expect(screen).toContain('Publish the analysis?');
    terminal.press('a');
    expect(await terminal.waitFor((s) => /EXIT=\d+/.test(s))).toContain('EXIT=0');
  });
});
