import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliPath } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { TmuxTerminal } from '../helpers/tmux.js';

/** Two branches of two steps side by side, each call taking a while, then a reduce. */
const spec = `version: 0
name: side-by-side
runtime:
  provider: scripted
  scripted: { latency_ms: 1500 }
agents:
  scraper: { prompt: "You scrape." }
  reader: { prompt: "You read." }
  aggregator: { prompt: "You combine." }
pattern:
  type: parallel
  config:
    branches:
      - id: web
        steps:
          - { agent: scraper, input: "scrape" }
          - { agent: scraper, input: "validate {{ steps[0].response }}" }
      - id: docs
        steps:
          - { agent: reader, input: "read" }
          - { agent: reader, input: "summarise {{ steps[0].response }}" }
    reduce: { agent: aggregator, input: "{{ branches.web.response }} {{ branches.docs.response }}" }
`;

const spinner = '[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]';

let terminal: TmuxTerminal | undefined;
afterEach(() => terminal?.close());

describe('the run view of a parallel run in a real terminal', () => {
  it('runs two branches at once, a spinner on each, then prints every branch and the reduce', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'spec.yaml'), spec);
    terminal = new TmuxTerminal(cwd, { ACODE_HOME: join(cwd, 'home'), PATH: process.env.PATH ?? '' }, { columns: 100, rows: 24 });
    terminal.run(`node ${cliPath} run spec.yaml; echo "EXIT=$?"`);
    const both = new RegExp(`▸ branch web · 0/2 done · 1 running\\n +${spinner} web/1 scraper [\\d.]+s\\n +○ web/2 scraper\\n▸ branch docs · 0/2 done · 1 running\\n +${spinner} docs/1 reader [\\d.]+s\\n +○ docs/2 reader\\n○ reduce aggregator`);
    const running = await terminal.waitFor((s) => both.test(s) && s.includes('· 2 running ·'));
    expect(running).toContain('acode side-by-side · 5 steps in 2 branches, then reduce · session');
    // The spinners turn: a later screen shows them in another frame.
    const first = running.match(new RegExp(spinner, 'g'))!.join('');
    await terminal.waitFor((s) => (s.match(new RegExp(spinner, 'g')) ?? []).join('') !== first);

    const done = await terminal.waitFor((s) => /EXIT=\d+/.test(s), 20_000);
    expect(done).toContain('EXIT=0');
    expect(done).toMatch(/✓ branch (web|docs) · 2\/2 done\n/);
    expect(done).toMatch(/✓ branch web · 2\/2 done\n +✓ web\/1 scraper [\d.]+s · \d+ in \/ \d+ out\n +✓ web\/2 scraper /);
    expect(done).toMatch(/✓ branch docs · 2\/2 done\n +✓ docs\/1 reader [\d.]+s/);
    expect(done).toMatch(/✓ reduce aggregator [\d.]+s/);
    expect(done).toContain('5/5 done · 0 skipped (completed earlier) · 0 remaining · 0 running');
    expect(done).toContain('✓ completed');
    // Each branch is printed once.
    expect(done.match(/branch web/g)).toHaveLength(1);
  });
});

/** A folder holding `spec` as spec.yaml, and a store of its own. */
function workspace(spec: string) {
  const cwd = tempDir();
  const home = join(cwd, 'home');
  writeFileSync(join(cwd, 'spec.yaml'), spec);
  return { cwd, home, env: { ACODE_HOME: home } };
}

describe('the run view of a parallel session whose branches finish out of order', () => {
  // Was: ui/run/run-view.tsx staticItems lists finished steps in shape order inside Ink's
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
    const finished = screen.split('\n').filter((line) => /^✓ +[ab]\/\d+ /.test(line.trim()));
    // a/0 and b/0 finish together, a/1 last: three rows, each step once (alpha twice, beta once).
    expect(finished).toHaveLength(3);
    expect(finished.filter((line) => line.includes('alpha'))).toHaveLength(2);
    expect(finished.filter((line) => line.includes('beta'))).toHaveLength(1);
  });
});
