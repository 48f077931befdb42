import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSessionSource } from '../../source/commands/browser-source.js';
import type { CommandContext } from '../../source/commands/command-context.js';
import { detailsLines } from '../../source/ui/browser/browser-lines.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/** strands-cli's parallel research DAG, offline: overview → technical ∥ applications → synthesis; technical's first call dies as with kill -9. */
const workflow = `version: 0
name: dag
runtime:
  provider: scripted
  max_parallel: 2
  scripted:
    faults:
      - { step: technical, kind: crash }
agents:
  researcher: { prompt: "You research {{ topic }}." }
pattern:
  type: workflow
  config:
    tasks:
      - { id: overview, agent: researcher, input: "Overview of {{ topic }}" }
      - { id: technical, agent: researcher, deps: [overview], input: "Technical: {{ tasks.overview.response }}" }
      - { id: applications, agent: researcher, deps: [overview], input: "Applications: {{ tasks.overview.response }}" }
      - { id: synthesis, agent: researcher, deps: [technical, applications], input: "{{ tasks.technical.response }} {{ tasks.applications.response }}" }
inputs:
  values: { topic: edge computing }
outputs:
  artifacts:
    - { path: report.md, from: "{{ tasks.synthesis.response }}" }
`;

/** strands-cli's parallel demo with an approval inside a branch, on the scripted provider. */
const parallel = readFileSync('test/fixtures/strands-examples/parallel-hitl-branch-demo.yaml', 'utf8').replace('provider: openai', 'provider: scripted');

function workspace(file: string, text: string) {
  const cwd = tempDir();
  const home = join(cwd, 'home');
  writeFileSync(join(cwd, file), text);
  return { cwd, home, env: { ACODE_HOME: home } };
}

type Workspace = ReturnType<typeof workspace>;

const sessionIds = (ws: Workspace) => (existsSync(join(ws.home, 'sessions')) ? readdirSync(join(ws.home, 'sessions')) : []);

async function crashedWorkflow() {
  const ws = workspace('dag.yaml', workflow);
  const run = await runCli(['run', 'dag.yaml'], ws);
  expect(run.signal, run.stderr).toBe('SIGKILL');
  // Plain lines name each task.
  expect(run.stderr).toMatch(/^started: 4 steps\n▶ overview \(researcher\)\n✓ overview \(researcher\) [\d.]+s · \d+ in \/ \d+ out\n/m);
  expect(run.stderr).toContain('▶ technical (researcher)\n');
  const [id] = sessionIds(ws);
  return { ws, id: id! };
}

interface ShownStep {
  id: string;
  title: string;
  status: string;
  attempt: number;
}

async function shownSteps(ws: Workspace, id: string): Promise<Record<string, ShownStep>> {
  const show = await runCli(['sessions', 'show', id, '--json'], ws);
  expect(show.code, show.stderr).toBe(0);
  const steps = (JSON.parse(show.stdout) as { steps: ShownStep[] }).steps;
  return Object.fromEntries(steps.map((step) => [step.id, step]));
}

describe('a workflow session on disk', () => {
  it('shows each task where it stands after a crash: in sessions show, in the browser and in the resume plan', async () => {
    const { ws, id } = await crashedWorkflow();
    const steps = await shownSteps(ws, id);
    expect(Object.keys(steps)).toEqual(['overview', 'technical', 'applications', 'synthesis']);
    expect(steps.overview).toMatchObject({ title: 'task overview', status: 'done' });
    expect(steps.technical).toMatchObject({ title: 'task technical', status: 'interrupted', attempt: 1 });
    expect(steps.synthesis).toMatchObject({ status: 'pending' });
    // Applications ran beside technical: started (interrupted with it) or not yet, as the crash fell.
    const applications = steps.applications!.status;
    expect(['interrupted', 'pending']).toContain(applications);

    const show = await runCli(['sessions', 'show', id], ws);
    // With its id: `acode resume` alone resumes the most recent session, which may be another.
    expect(show.stdout).toMatch(new RegExp(`status +running \\(interrupted: resume it with acode resume ${id}\\)`));
    // Each step's state, then what it did: time, tokens, the first line of its response.
    expect(show.stdout).toMatch(/steps\n  level 1\n    ✓ overview +researcher +done +attempt 1 +[\d.]+s +\d+ in \/ \d+ out +researcher answered task overview .*\n  level 2\n    ✗ technical +researcher +interrupted +attempt 1 +(≥ [\d.]+s|time unknown \(killed\))\n    [✗○] applications +researcher +(interrupted +attempt 1 +(≥ [\d.]+s|time unknown \(killed\))|pending)\n  level 3\n    ○ synthesis +researcher +pending\n/);
    // A task by its id: its whole response; an id the workflow does not have names the ones it has.
    const overview = await runCli(['sessions', 'show', id, '--step', 'overview'], ws);
    expect(overview.stdout).toMatch(/^step {6}overview \(task overview\) · researcher\nstatus {4}done\n[^]*response\n {2}researcher answered task overview/);
    const unknown = await runCli(['sessions', 'show', id, '--step', '2'], ws);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--step 2: no such step in session');
    expect(unknown.stderr).toContain('give a step: overview, technical, applications, synthesis');

    const source = await createSessionSource({ env: ws.env, cwd: ws.cwd } as unknown as CommandContext);
    const details = source.details(id);
    expect(details).toMatchObject({ damaged: null, pattern: 'workflow' });
    expect(details.steps.map((step) => [step.id, step.status])).toEqual([['overview', 'done'], ['technical', 'interrupted'], ['applications', applications], ['synthesis', 'pending']]);
    expect(detailsLines(details)[0]!.map((segment) => segment.text).join('')).toBe(`✓ overview  ✗ technical  ${applications === 'pending' ? '○' : '✗'} applications  ○ synthesis  `);

    const dry = await runCli(['resume', id, '--dry-run'], ws);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/skip \(done\): +overview researcher\n/);
    expect(dry.stdout).toMatch(/in progress: +technical researcher, attempt 1 → retry as attempt 2/);
    expect(dry.stdout).toMatch(applications === 'pending' ? /remaining: +applications researcher, synthesis researcher\n/ : /remaining: +synthesis researcher\n/);
    const plan = JSON.parse((await runCli(['resume', id, '--dry-run', '--json'], ws)).stdout) as { in_progress: { step: string; title: string }[]; remaining: { step: string }[] };
    expect(plan.in_progress).toEqual(expect.arrayContaining([expect.objectContaining({ step: 'technical', title: 'task technical', agent: 'researcher', attempt: 1 })]));
    expect(plan.remaining.map((step) => step.step).at(-1)).toBe('synthesis');
  });

  it('resumes only the unfinished tasks, and a fork from one task reuses every task not downstream of it', async () => {
    const { ws, id } = await crashedWorkflow();
    const resumed = await runCli(['resume', id, '--json'], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'completed', steps_skipped: 1, steps_executed: 3 });
    expect(Object.values(await shownSteps(ws, id)).map((step) => step.status)).toEqual(['done', 'done', 'done', 'done']);

    const fork = await runCli(['fork', id, '--from-step', 'applications', '--json'], ws);
    expect(fork.code, fork.stderr).toBe(0);
    expect(fork.stderr).toContain('reusing 2 steps');
    const summary = JSON.parse(fork.stdout) as { session_id: string };
    expect(summary).toMatchObject({ status: 'completed', steps_executed: 2 });
    const history = JSON.parse((await runCli(['sessions', 'history', summary.session_id, '--json'], ws)).stdout) as { type: string; step?: string }[];
    // Technical does not read applications: it is reused; synthesis reads it: run again.
    expect(history.filter((e) => e.type === 'step_reused').map((e) => e.step)).toEqual(['overview', 'technical']);
    expect(history.filter((e) => e.type === 'step_completed').map((e) => e.step)).toEqual(['applications', 'synthesis']);
  });

  it('refuses a --from-step that names no task, listing the ids it takes, and creates nothing', async () => {
    const { ws, id } = await crashedWorkflow();
    const fork = await runCli(['fork', id, '--from-step', 'analysis'], ws);
    expect(fork.code).toBe(2);
    expect(fork.stderr).toBe(`acode: --from-step analysis: no such step in session ${id}; give a step whose prerequisites completed: overview, technical, applications\n`);
    // Synthesis waits for tasks that never finished.
    const waiting = await runCli(['fork', id, '--from-step', 'synthesis'], ws);
    expect(waiting.code).toBe(2);
    expect(waiting.stderr).toContain('--from-step synthesis: the steps it waits for have not completed');
    expect(sessionIds(ws)).toEqual([id]);
  });
});

describe('a parallel session on disk', () => {
  it('shows each branch with its steps while an approval in one branch waits, and plans the resume by branch', async () => {
    const ws = workspace('par.yaml', parallel);
    const run = await runCli(['run', 'par.yaml', '--var', 'topic=async python'], ws);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain('◆ web_research/2 (approval): Review the scraped web data quality and accuracy.');
    expect(run.stderr).toMatch(/✓ docs_research\/1 \(docs_reader\) [\d.]+s/);
    const [id] = sessionIds(ws);

    const show = await runCli(['sessions', 'show', id!], ws);
    // By name, as --from-step takes them: a branch's steps from 1.
    expect(show.stdout).toMatch(/steps\n  branch web_research\n    ✓ web_research\/1 +web_scraper +done +attempt 1 +[\d.]+s +\d+ in \/ \d+ out +web_scraper answered .*\n    ◆ web_research\/2 +approval +awaiting approval +attempt 1 +[\d.]+s\n    ○ web_research\/3 +data_validator +pending\n  branch docs_research\n    ✓ docs_research\/1 +docs_reader +done .*\n  ○ reduce +aggregator +pending\n/);

    const source = await createSessionSource({ env: ws.env, cwd: ws.cwd } as unknown as CommandContext);
    const details = source.details(id!);
    expect(detailsLines(details)[0]!.map((segment) => segment.text).join('')).toBe('web_research ✓◆○  docs_research ✓  reduce ○  ');

    const dry = await runCli(['resume', id!, '--dry-run'], ws);
    expect(dry.stdout).toMatch(/skip \(done\): +web_research\/1 web_scraper, docs_research\/1 docs_reader\n/);
    expect(dry.stdout).toMatch(/in progress: +web_research\/2 approval, attempt 1 → ask for the approval again\n/);
    expect(dry.stdout).toMatch(/remaining: +web_research\/3 data_validator, reduce aggregator\n/);

    const fork = await runCli(['fork', id!, '--from-step', 'reduce'], ws);
    expect(fork.code).toBe(2);
    expect(fork.stderr).toContain('give a step whose prerequisites completed: web_research/1, web_research/2, docs_research/1');
  });
});

/** A router answering as strands-cli's routers do, on the scripted provider; an evaluator scoring twice. */
const deciding = {
  routing: `version: 0
name: support
runtime:
  provider: scripted
  scripted:
    responses:
      classifier: '{"route": "technical"}'
agents:
  classifier: { prompt: "Classify." }
  engineer: { prompt: "Answer technically." }
  helper: { prompt: "Answer simply." }
pattern:
  type: routing
  config:
    router: { agent: classifier, input: "Route: {{ question }}" }
    routes:
      technical: { then: [{ agent: engineer, input: "{{ question }}" }] }
      faq: { then: [{ agent: helper, input: "{{ question }}" }] }
inputs:
  values: { question: "Why does my build fail?" }
`,
};

describe("what a deciding pattern read of an answer, as it runs", () => {
  it("the plain ✓ line of a router says the route taken and the routes not taken", async () => {
    const ws = workspace('support.yaml', deciding.routing);
    const run = await runCli(['run', 'support.yaml'], ws);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^✓ router \(classifier\) [\d.]+s · \d+ in \/ \d+ out · chose technical \(not taken: faq\)$/m);
    // Steps the pattern read nothing of keep their line as it was.
    expect(run.stderr).toMatch(/^✓ technical\/1 \(engineer\) [\d.]+s · \d+ in \/ \d+ out$/m);
 
    // The browser's details pane names the decision too.
    const [id] = sessionIds(ws);
    const source = await createSessionSource({ env: ws.env, cwd: ws.cwd } as unknown as CommandContext);
    const decided = detailsLines(source.details(id!)).map((line) => line.map((segment) => segment.text).join(''));
    expect(decided).toContain('decided router: chose technical (not taken: faq)');
  });

  it('fork --from-step takes a route step: the router\'s choice is reused, never asked again; from the router, nothing is', async () => {
    const ws = workspace('support.yaml', deciding.routing);
    expect((await runCli(['run', 'support.yaml'], ws)).code).toBe(0);
    const [id] = sessionIds(ws);
    const fork = await runCli(['fork', id!, '--from-step', 'technical/1'], ws);
    expect(fork.code, fork.stderr).toBe(0);
    // The first line counts the steps the fork knows once the reused ones are in (a route's steps follow its router), never below 0.
    expect(fork.stderr).toContain(`fork of ${id}: 1 step reused, 1 to run`);
    const forked = sessionIds(ws).find((other) => other !== id)!;
    const events = readFileSync(join(ws.home, 'sessions', forked, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { type: string; step?: string });
    expect(events.filter((event) => event.type === 'step_reused').map((event) => event.step)).toEqual(['router']);
    expect(events.filter((event) => event.type === 'step_completed').map((event) => event.step)).toEqual(['technical/0']);
    const again = await runCli(['fork', id!, '--from-step', 'router'], ws);
    expect(again.code, again.stderr).toBe(0);
    const third = sessionIds(ws).find((other) => other !== id && other !== forked)!;
    const thirdEvents = readFileSync(join(ws.home, 'sessions', third, 'events.jsonl'), 'utf8');
    expect(thirdEvents).not.toContain('"type":"step_reused"');
    expect(thirdEvents).toContain('"type":"step_completed","step":"router"');
    // A step id the pattern does not have names the ones it takes.
    const wrong = await runCli(['fork', id!, '--from-step', 'technical/9'], ws);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('router');
  });
});
