import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * One name per step (issue 34): the run's lines, `sessions show` (rows, --json, --step), `history`,
 * `resume --dry-run --json` and `fork --from-step/--dry-run` all name the first step of branch
 * industry `industry/1`, and every flag takes that name — never the stored 0-based id.
 */
const spec = `version: 0
name: names
runtime:
  provider: scripted
  model_id: m
agents:
  researcher: { prompt: "You research." }
  writer: { prompt: "You write." }
pattern:
  type: parallel
  config:
    branches:
      - id: industry
        steps:
          - { agent: researcher, input: "industry view" }
          - { agent: writer, input: "sum up {{ steps[0].response }}" }
      - id: academic
        steps:
          - { agent: researcher, input: "academic view" }
    reduce: { agent: writer, input: "combine" }
`;

describe('one name per step in every view and flag', () => {
  it('names a branch step industry/1 in the lines, show, --step, history, the fork dry run and the resume dry run', async () => {
    const cwd = tempDir();
    const ws = { cwd, env: { ACODE_HOME: join(cwd, 'home') } };
    writeFileSync(join(cwd, 'spec.yaml'), spec);
    const run = await runCli(['run', 'spec.yaml'], ws);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('✓ industry/1 (researcher)');
    expect(run.stderr).toContain('✓ industry/2 (writer)');
    const [id] = readdirSync(join(cwd, 'home', 'sessions')).filter((name) => !name.startsWith('.'));

    const show = await runCli(['sessions', 'show', id!], ws);
    expect(show.stdout).toMatch(/✓ industry\/1 +researcher/);
    expect(show.stdout).toMatch(/✓ academic\/1 +researcher/);
    expect(show.stdout).not.toContain('industry/0');
    const json = JSON.parse((await runCli(['sessions', 'show', id!, '--json'], ws)).stdout) as { steps: { id: string }[] };
    expect(json.steps.map((step) => step.id)).toEqual(['industry/1', 'industry/2', 'academic/1', 'reduce']);

    // Each name shown is taken back by --step; the stored id is refused with the names it takes.
    for (const name of json.steps.map((step) => step.id)) {
      const one = await runCli(['sessions', 'show', id!, '--step', name, '--json'], ws);
      expect(one.code, one.stderr).toBe(0);
      expect((JSON.parse(one.stdout) as { id: string }).id).toBe(name);
    }
    const stored = await runCli(['sessions', 'show', id!, '--step', 'industry/0'], ws);
    expect(stored.code).toBe(2);
    expect(stored.stderr).toContain('give a step: industry/1, industry/2, academic/1, reduce');

    const history = JSON.parse((await runCli(['sessions', 'history', id!, '--json'], ws)).stdout) as { type: string; step?: string }[];
    expect(history.filter((event) => event.type === 'step_completed').map((event) => event.step).sort()).toEqual(['academic/1', 'industry/1', 'industry/2', 'reduce']);

    const dry = await runCli(['fork', id!, '--from-step', 'industry/2', '--dry-run', '--json'], ws);
    expect(dry.code, dry.stderr).toBe(0);
    const steps = (JSON.parse(dry.stdout) as { steps: { step: string; reused: boolean }[] }).steps;
    expect(steps.map((step) => [step.step, step.reused])).toEqual([['industry/1', true], ['industry/2', false], ['academic/1', true], ['reduce', false]]);
    const plain = await runCli(['fork', id!, '--from-step', 'industry/2', '--dry-run'], ws);
    expect(plain.stdout).toMatch(/↷ step industry\/1 +researcher +reused/);

    // A fork run again from industry/2 stops at the reduce's approval-free end: its resume plan names steps the same way.
    const fork = await runCli(['fork', id!, '--from-step', 'industry/2', '--json'], ws);
    expect(fork.code, fork.stderr).toBe(0);
    expect(fork.stderr).toContain('industry/2 (writer)');
  });

  it('refuses a route without a name: its steps would be named /1, which no flag takes', async () => {
    const cwd = tempDir();
    const ws = { cwd, env: { ACODE_HOME: join(cwd, 'home') } };
    writeFileSync(join(cwd, 'spec.yaml'), `version: 0
name: nameless
runtime:
  provider: scripted
  scripted:
    responses:
      classifier: '{"route": ""}'
agents:
  classifier: { prompt: "Classify." }
  w: { prompt: "Work." }
pattern:
  type: routing
  config:
    router: { agent: classifier, input: "go" }
    routes:
      "": { then: [{ agent: w, input: "one" }] }
      faq: { then: [{ agent: w, input: "two" }] }
`);
    const checked = await runCli(['validate', 'spec.yaml'], ws);
    expect(checked.code).toBe(2);
    expect(checked.stderr + checked.stdout).toMatch(/spec\.yaml:\d+:\d+: error: a route needs a name/);
    const run = await runCli(['run', 'spec.yaml'], ws);
    expect(run.code).toBe(2);
  });

  it('names the steps of an interrupted session the same in the resume plan', async () => {
    const cwd = tempDir();
    const ws = { cwd, env: { ACODE_HOME: join(cwd, 'home') } };
    writeFileSync(join(cwd, 'spec.yaml'), spec.replace('- { agent: writer, input: "sum up {{ steps[0].response }}" }', '- { type: approval, prompt: "go on?" }'));
    const run = await runCli(['run', 'spec.yaml'], ws);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain('◆ industry/2 (approval)');
    const plan = JSON.parse((await runCli(['resume', '--dry-run', '--json'], ws)).stdout) as Record<'skip' | 'in_progress' | 'remaining', { step: string }[]>;
    expect(plan.skip.map((step) => step.step).sort()).toEqual(['academic/1', 'industry/1']);
    expect(plan.in_progress.map((step) => step.step)).toEqual(['industry/2']);
    expect(plan.remaining.map((step) => step.step)).toEqual(['reduce']);
    const text = await runCli(['resume', '--dry-run'], ws);
    expect(text.stdout).toMatch(/in progress: +industry\/2 approval, attempt 1/);
  });
});
