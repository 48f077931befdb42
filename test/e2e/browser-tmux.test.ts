import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generateSessions } from '../../bench/generate-sessions.js';
import { cliPath, runCli, startCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { TmuxTerminal } from '../helpers/tmux.js';

let terminal: TmuxTerminal | undefined;
afterEach(() => terminal?.close());

const spec = `version: 0
name: tmux-browse
runtime:
  provider: scripted
  scripted:
    faults:
      - { step: 1, kind: crash }
agents:
  worker: { prompt: "You work." }
pattern:
  type: chain
  config:
    steps:
      - { agent: worker, input: "one" }
      - { agent: worker, input: "two" }
      - { agent: worker, input: "three" }
`;

async function storeWithACrashedSession() {
  const cwd = tempDir();
  const home = join(tempDir(), 'home');
  generateSessions(home, 50, (i) => (i % 2 ? cwd : '/elsewhere'));
  writeFileSync(join(cwd, 'spec.yaml'), spec);
  expect((await runCli(['run', 'spec.yaml'], { cwd, env: { ACODE_HOME: home } })).signal).toBe('SIGKILL');
  return { cwd, home };
}

describe('the session browser in a real terminal', () => {
  it('opens full-screen, finds a session by search, looks at its steps (→), resumes it with Enter (straight to its plan), comes back on it when the run ends, and gives the terminal back', async () => {
    const { cwd, home } = await storeWithACrashedSession();
    terminal = new TmuxTerminal(cwd, { ACODE_HOME: home, PATH: process.env.PATH ?? '' }, { columns: 130, rows: 32 });
    terminal.run(`echo MARKER-BEFORE; node ${cliPath}; echo "EXIT=$?"`);
    // Each wait names everything it then checks: a capture can catch a frame half drawn.
    let screen = await terminal.waitFor((s) => s.includes('51 sessions') && /scope this directory · 26 shown/.test(s));
    expect(screen).not.toContain('MARKER-BEFORE'); // the alternate screen

    terminal.press('/');
    await terminal.waitFor((s) => /^\/ ?$/m.test(s)); // the empty search line
    terminal.run('tmux-browse'); // types the query, Enter keeps it
    await terminal.waitFor((s) => /\/tmux-browse/.test(s) && s.includes('1 shown') && /❯ [0-9a-f]{8} tmux-browse +interrupted +1\/3/.test(s));

    terminal.press('Right'); // its steps
    await terminal.waitFor((s) => s.includes('resumable: r resumes it') && /✗ 2 +worker +interrupted +attempt 1/.test(s));
    terminal.press('Escape');
    await terminal.waitFor((s) => s.includes('1 shown') && !s.includes('resumable: r resumes it'));
    terminal.press('Enter'); // a resumable session: straight to its plan
    screen = await terminal.waitFor((s) => s.includes('Enter start') && /Resume session [0-9a-f]{16}\?/.test(s) && /in progress: +2 worker, attempt 1 → retry as attempt 2/.test(s));
    const id = /Resume session ([0-9a-f]{16})\?/.exec(screen)![1]!;
    terminal.press('Enter');

    // The run ends: the browser opens again, on that session, with the search it had.
    screen = await terminal.waitFor((s) => s.includes(`the resume of ${id.slice(0, 8)} ended (exit 0)`) && new RegExp(`❯ ${id.slice(0, 8)} tmux-browse +completed +3/3`).test(s));
    expect(screen).toMatch(/\/tmux-browse/);
    expect(screen).toContain('1 shown');
    expect(screen).not.toContain('MARKER-BEFORE');
    terminal.press('q');

    screen = await terminal.waitFor((s) => /EXIT=\d+/.test(s));
    expect(screen).toContain('EXIT=0');
    expect(screen).toContain('MARKER-BEFORE'); // the main screen is back
    expect(screen).toMatch(/✓ completed/);
    expect(screen).toMatch(/3\/3 done · 1 skipped \(completed earlier\)/);
  });

  it('updates the list live while a session runs in another terminal', async () => {
    const { cwd, home } = await storeWithACrashedSession();
    // Steps long enough that the run is still going once the browser watches (it starts watching after
    // its first look, later on a loaded machine: with 1.5 s steps a loaded CI saw only the end).
    writeFileSync(join(cwd, 'slow.yaml'), spec.replace('name: tmux-browse', 'name: live-one').replace("      - { step: 1, kind: crash }", '      []').replace('faults:', 'latency_ms: 2500\n    faults:'));
    terminal = new TmuxTerminal(cwd, { ACODE_HOME: home, PATH: process.env.PATH ?? '' }, { columns: 130, rows: 32 });
    terminal.run(`node ${cliPath}`);
    await terminal.waitFor((s) => s.includes('51 sessions'));
    const run = runCli(['run', 'slow.yaml'], { cwd, env: { ACODE_HOME: home } });
    await terminal.waitFor((s) => /live-one +running/.test(s));
    expect((await run).code).toBe(0);
    await terminal.waitFor((s) => /live-one +completed +3\/3/.test(s));
    terminal.press('q');
  });

  it('at 70 columns drops columns, says where a live session runs on Enter, and quits only on q', async () => {
    const cwd = tempDir();
    const home = join(tempDir(), 'home');
    generateSessions(home, 30, () => cwd);
    writeFileSync(join(cwd, 'slow.yaml'), spec.replace('name: tmux-browse', 'name: live-one').replace("      - { step: 1, kind: crash }", '      []').replace('faults:', 'latency_ms: 20000\n    faults:'));
    const run = startCli(['run', 'slow.yaml'], { cwd, env: { ACODE_HOME: home } });
    try {
      terminal = new TmuxTerminal(cwd, { ACODE_HOME: home, PATH: process.env.PATH ?? '' }, { columns: 70, rows: 24 });
      terminal.run(`node ${cliPath}; echo "EXIT=$?"`);
      await terminal.waitFor((s) => /live-one +running +0\/3/.test(s) && s.includes('31 sessions'));
      terminal.press('g'); // the newest session, which may have started after the browser opened
      let screen = await terminal.waitFor((s) => /❯ [0-9a-f]{8} live-one +running +0\/3/.test(s));
      const head = screen.split('\n').find((line) => line.includes('WORKFLOW'))!;
      expect(head.trim().split(/ +/)).toEqual(['ID', 'WORKFLOW', 'STATUS', 'STEPS', 'UPDATED']);
      for (const row of screen.split('\n').filter((line) => /^[ ❯] [0-9a-f]{8} /.test(line))) expect(row).toMatch(/ \d+[smhd] ago$/);

      terminal.press('Enter'); // its steps, and where it runs over them
      const said = `is running in pid ${run.child.pid} on host ${hostname()}`;
      const joined = (s: string) => s.split('\n').map((line) => line.trim()).join(' ');
      screen = await terminal.waitFor((s) => joined(s).includes(said) && joined(s).includes('cannot be resumed while that process runs'));
      terminal.press('j'); // the next key clears the message
      await terminal.waitFor((s) => !joined(s).includes(said) && s.includes('3 steps'));
      terminal.press('r'); // resume: refused with where it runs, no plan offered
      screen = await terminal.waitFor((s) => joined(s).includes(said));
      expect(screen).not.toContain('Resume session');

      terminal.press('Escape'); // back to the list; Esc never quits
      await terminal.waitFor((s) => !joined(s).includes(said) && s.includes('WORKFLOW'));
      terminal.press('Escape');
      terminal.press('BTab'); // Shift+Tab: the filters backwards
      screen = await terminal.waitFor((s) => s.includes('filter failed'));
      expect(screen).not.toMatch(/EXIT=/);
      terminal.press('q');
      expect(await terminal.waitFor((s) => /EXIT=\d+/.test(s))).toContain('EXIT=0');
    } finally {
      run.child.kill('SIGKILL');
      await run.done;
    }
  });

  it('answers keys pressed as soon as the first frame shows, without echoing them', async () => {
    const cwd = tempDir();
    const home = join(tempDir(), 'home');
    const { ids } = generateSessions(home, 1000, () => cwd);
    terminal = new TmuxTerminal(cwd, { ACODE_HOME: home, PATH: process.env.PATH ?? '' }, { columns: 130, rows: 32 });
    terminal.run(`node ${cliPath}; echo "EXIT=$?"`);
    await terminal.waitFor((s) => s.includes('1000 sessions') && s.includes(`❯ ${ids.at(-1)!.slice(0, 8)}`));
    terminal.press('j', 'j', 'j', 'k'); // likely before React and Ink have loaded: they wait, unechoed
    const screen = await terminal.waitFor((s) => s.includes(`❯ ${ids.at(-3)!.slice(0, 8)}`) && s.includes('↑↓ move'));
    expect(screen).not.toMatch(/jjjk|\^\[/);
    expect(screen.split('\n')[0]).toContain('1000 sessions'); // the frame starts at the top: nothing scrolled
    terminal.press('q');
    expect(await terminal.waitFor((s) => /EXIT=\d+/.test(s))).toContain('EXIT=0');
  });

  it('restores the terminal when quit with q or Ctrl+C', async () => {
    const { cwd, home } = await storeWithACrashedSession();
    terminal = new TmuxTerminal(cwd, { ACODE_HOME: home, PATH: process.env.PATH ?? '' });
    terminal.run(`echo MARKER-BEFORE; node ${cliPath}; echo "EXIT=$?"`);
    await terminal.waitFor((s) => s.includes('51 sessions'));
    terminal.press('q');
    let screen = await terminal.waitFor((s) => /EXIT=\d+/.test(s));
    expect(screen).toContain('EXIT=0');
    expect(screen).toContain('MARKER-BEFORE');
    expect(screen).not.toContain('51 sessions');

    terminal.run('clear');
    terminal.run(`node ${cliPath}; echo "CTRLC=$?"`);
    await terminal.waitFor((s) => s.includes('51 sessions'));
    terminal.press('C-c');
    screen = await terminal.waitFor((s) => /CTRLC=\d+/.test(s));
    expect(screen).toContain('CTRLC=0');
    expect(screen).not.toContain('51 sessions');
  });

  // FIXED: source/ui/browser/full-screen.ts (keepingScrollback): the browser's frame fills the terminal, so Ink cleared it with
  // ESC[2J ESC[3J on every change — and ESC[3J erases the main screen's history even from the alternate screen.
  it("leaves the terminal's scrollback as it was, however often its frame changes", async () => {
    const { cwd, home } = await storeWithACrashedSession();
    terminal = new TmuxTerminal(cwd, { ACODE_HOME: home, PATH: process.env.PATH ?? '' }, { columns: 120, rows: 30 });
    terminal.run('seq 1 300');
    await terminal.waitFor((s) => s.includes('300'));
    const history = terminal.historySize();
    expect(history).toBeGreaterThan(250);
    terminal.run(`node ${cliPath}; echo "EXIT=$?"`);
    await terminal.waitFor((s) => s.includes('51 sessions'));
    terminal.press('j', 'j', 's'); // frames that change, scope flipped
    await terminal.waitFor((s) => s.includes('scope all'));
    terminal.press('q');
    await terminal.waitFor((s) => /EXIT=0/.test(s));
    expect(terminal.historySize()).toBeGreaterThanOrEqual(history);
  });

  // FIXED: source/ui/browser/browser-lines.ts (showsDetails, tableRowsFor): below 15 rows the frame was taller than the terminal
  // (12 rows of chrome, 3 table rows at least): Ink scrolled it, the header went off and, after j, the selected row too.
  it.each([10, 12])('fits a terminal %i rows tall: the header on top, the selected row shown as it moves', async (rows) => {
    const { cwd, home } = await storeWithACrashedSession();
    terminal = new TmuxTerminal(cwd, { ACODE_HOME: home, PATH: process.env.PATH ?? '' }, { columns: 80, rows });
    terminal.run(`node ${cliPath}; echo "EXIT=$?"`);
    let screen = await terminal.waitFor((s) => s.includes('51 sessions'));
    const selected = (s: string) => /^❯ ([0-9a-f]{8})/m.exec(s)?.[1];
    for (let press = 0; press < 4; press++) {
      const before = selected(screen);
      terminal.press('j');
      // The selection moved on, or the frame shows no selected row at all (as it did, scrolled off).
      screen = await terminal.waitFor((s) => selected(s) !== before && s.includes('↑↓ move'));
      expect(screen.split('\n')[0], screen).toContain('51 sessions');
      expect(screen).toMatch(/^❯ [0-9a-f]{8}/m);
      expect(screen.split('\n').filter((line) => line.includes('51 sessions'))).toHaveLength(1);
    }
    terminal.press('q');
    expect(await terminal.waitFor((s) => /EXIT=\d+/.test(s))).toContain('EXIT=0');
  });
});

/** A folder holding `spec` as spec.yaml, and a store of its own. */
function workspace(spec: string) {
  const cwd = tempDir();
  const home = join(cwd, 'home');
  writeFileSync(join(cwd, 'spec.yaml'), spec);
  return { cwd, home, env: { ACODE_HOME: home } };
}

describe('the browser on workflow and parallel sessions', () => {
  // Was: store/session-peek.ts peekSession reads `pattern.config.steps` only, so the details
  // pane calls every workflow and parallel session damaged ("spec.json is not a valid spec").
  it('shows a killed workflow session\'s details, not "damaged"', async () => {
    const ws = workspace(`version: 0
name: wf-browse
runtime:
  provider: scripted
  model_id: m
  scripted:
    faults:
      - { step: "second", kind: crash }
agents:
  w: { prompt: "worker" }
pattern:
  type: workflow
  config:
    tasks:
      - { id: first, agent: w, input: "one" }
      - { id: second, agent: w, input: "two {{ tasks.first.response }}", deps: [first] }
`);
    expect((await runCli(['run', 'spec.yaml'], ws)).signal).toBe('SIGKILL');
    terminal = new TmuxTerminal(ws.cwd, { ACODE_HOME: ws.home, PATH: process.env.PATH ?? '' }, { columns: 130, rows: 32 });
    terminal.run(`node ${cliPath}`);
    // The details pane names the tasks (or says the session is damaged).
    const screen = await terminal.waitFor((s) => /wf-browse/.test(s) && (s.includes('damaged') || /\bsecond\b/.test(s)));
    expect(screen).not.toContain('damaged');
    expect(screen).toMatch(/\bfirst\b/);
  });
});
