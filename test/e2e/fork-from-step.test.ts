import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chainSpec } from '../helpers/chain-spec.js';
import { runCli } from '../helpers/cli.js';
import { hashFolder } from '../helpers/folder-hash.js';
import { tempDir } from '../helpers/temp-dir.js';

/** `fork --from-step` in every pattern: a bad id is a usage error that writes nothing; a good one reuses what does not depend on it. */

function workspace(spec: string) {
  const cwd = tempDir();
  const home = join(cwd, 'home');
  writeFileSync(join(cwd, 'spec.yaml'), spec);
  return { cwd, home, env: { ACODE_HOME: home } };
}

const header = `version: 0
name: forks
runtime:
  provider: scripted
  model_id: m
agents:
  w: { prompt: "worker" }
`;

const specs = {
  chain: `${header}pattern:
  type: chain
  config:
    steps:
      - { agent: w, input: "s0" }
      - { agent: w, input: "s1 {{ steps[0].response }}" }
      - { agent: w, input: "s2 {{ steps[1].response }}" }
`,
  workflow: `${header}pattern:
  type: workflow
  config:
    tasks:
      - { id: "1", agent: w, input: "one" }
      - { id: reduce, agent: w, input: "r {{ tasks['1'].response }}", deps: ["1"] }
      - { id: side, agent: w, input: "side" }
`,
  parallel: `${header}pattern:
  type: parallel
  config:
    branches:
      - { id: a, steps: [ { agent: w, input: "a0" }, { agent: w, input: "a1 {{ steps[0].response }}" } ] }
      - { id: b, steps: [ { agent: w, input: "b0" } ] }
    reduce: { agent: w, input: "{{ branches.a.response }} {{ branches.b.response }}" }
`,
};

const bad: Record<keyof typeof specs, string[]> = {
  chain: ['0', '5', '-1', '1.5', 'x', '0/0', ''],
  workflow: ['2', 'nope', 'reduce/0', '@artifacts', ''],
  // A branch's steps count from 1, as every view names them: the stored id a/0 names none.
  parallel: ['a/3', 'a/0', 'a/01', 'a/-1', 'c/1', 'a', '1', 'a/1e0', ''],
};

const good: Record<keyof typeof specs, [from: string, reused: number][]> = {
  chain: [['1', 0], ['3', 2]],
  workflow: [['1', 1], ['reduce', 2], ['side', 2]],
  parallel: [['a/2', 2], ['b/1', 2], ['reduce', 3]],
};

describe('fork --from-step', () => {
  for (const pattern of Object.keys(specs) as (keyof typeof specs)[]) {
    it(`${pattern}: every bad step id exits 2 and leaves the store as it was; good ids reuse what does not depend on them`, async () => {
      const ws = workspace(specs[pattern]);
      const run = await runCli(['run', 'spec.yaml'], ws);
      expect(run.code, run.stderr).toBe(0);
      const [id] = readdirSync(join(ws.home, 'sessions'));
      const before = hashFolder(ws.home);
      for (const from of bad[pattern]) {
        const result = await runCli(['fork', id!, '--from-step', from], ws);
        expect(result.code, `--from-step '${from}': ${result.stderr}`).toBe(2);
        expect(result.stderr).not.toMatch(/\n\s+at /);
        expect(hashFolder(ws.home), `--from-step '${from}' changed the store`).toEqual(before);
      }
      for (const [from, reused] of good[pattern]) {
        const result = await runCli(['fork', id!, '--from-step', from, '--json'], ws);
        expect(result.code, result.stderr).toBe(0);
        expect(result.stderr).toContain(`reusing ${reused} step`);
        // A fork reuses its source's steps, it skips none: its closing line and --json say so.
        const summary = JSON.parse(result.stdout) as { steps_total: number };
        expect(summary).toMatchObject({ status: 'completed', steps_skipped: 0, steps_reused: reused, forked_from: id });
        expect(result.stderr).toContain(`✓ completed: ${summary.steps_total} steps (${summary.steps_total - reused} executed, ${reused} reused from ${id})`);
      }
    });
  }
});

describe('fork --from-step past the last step', () => {
  // FIXED: source/engine/fork-plan.ts: the range offered ends at the session's last step when every step completed (it offered
  // one past it: 'fork <2-step session> --from-step 3' was refused with "--from-step must be between 1 and 3").
  it('fork --from-step past the last step names a range that holds only real steps', async () => {
    const ws = workspace(chainSpec({ steps: 2, provider: 'scripted' }).replace(/outputs:[\s\S]*$/, ''));
    expect((await runCli(['run', 'spec.yaml', '--name', 'done'], ws)).code).toBe(0);
    const refused = await runCli(['fork', 'done', '--from-step', '3'], ws);
    expect(refused.code).toBe(2);
    expect(refused.stderr).not.toContain('between 1 and 3');
    expect(refused.stderr).toContain('between 1 and 2');
  });
});
