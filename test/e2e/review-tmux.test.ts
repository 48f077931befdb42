import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliPath, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { TmuxTerminal } from '../helpers/tmux.js';

/** Hostile review (issue #13): the screens of workflow and parallel sessions in a real terminal. */

let terminal: TmuxTerminal | undefined;
afterEach(() => terminal?.close());

function workspace(spec: string) {
  const cwd = tempDir();
  const home = join(cwd, 'home');
  writeFileSync(join(cwd, 'spec.yaml'), spec);
  return { cwd, home, env: { ACODE_HOME: home } };
}

describe('review: the browser on workflow and parallel sessions', () => {
  // Found by the hostile review (fixed): store/session-peek.ts peekSession reads `pattern.config.steps` only, so the details
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

describe('review: the run view of a parallel session', () => {
  // Found by the hostile review (fixed): ui/run/run-view.tsx staticItems lists finished steps in shape order inside Ink's
  // <Static>, which prints only items appended past the ones it printed; steps that finish out of
  // shape order print another step's row again and never their own.
  it('prints each finished step once, whatever order the branches finish in', async () => {
    const ws = workspace(`version: 0
name: lanes
runtime:
  provider: scripted
  model_id: m
  scripted:
    latency_ms: 300
agents:
  alpha: { prompt: "first branch" }
  beta: { prompt: "second branch" }
pattern:
  type: parallel
  config:
    branches:
      - { id: a, steps: [ { agent: alpha, input: "a0" }, { agent: alpha, input: "a1" } ] }
      - { id: b, steps: [ { agent: beta, input: "b0" } ] }
`);
    terminal = new TmuxTerminal(ws.cwd, { ACODE_HOME: ws.home, PATH: process.env.PATH ?? '' }, { columns: 120, rows: 30 });
    terminal.run(`node ${cliPath} run spec.yaml; echo "EXIT=$?"`);
    const screen = await terminal.waitFor((s) => /EXIT=\d+/.test(s));
    expect(screen).toContain('EXIT=0');
    const finished = screen.split('\n').filter((line) => /^✓ +\d+ /.test(line.trim()));
    // a/0 and b/0 finish together, a/1 last: three rows, each step once (alpha twice, beta once).
    expect(finished).toHaveLength(3);
    expect(finished.filter((line) => line.includes('alpha'))).toHaveLength(2);
    expect(finished.filter((line) => line.includes('beta'))).toHaveLength(1);
  });
});
