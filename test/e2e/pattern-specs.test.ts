import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { openAiServerPerTest } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const examples = 'test/fixtures/strands-examples';
const fixture = openAiServerPerTest();

/** A working directory holding copies of strands-cli examples, and an empty acode home. */
function workspace(...files: string[]) {
  const cwd = tempDir();
  const home = join(tempDir(), 'home');
  for (const file of files) cpSync(join(examples, file), join(cwd, file));
  return { cwd, home, env: { ACODE_HOME: home, OPENAI_API_KEY: 'sk-test-not-used' } };
}

function sessions(ws: ReturnType<typeof workspace>): string[] {
  return existsSync(join(ws.home, 'sessions')) ? readdirSync(join(ws.home, 'sessions')) : [];
}

describe('workflow and parallel specs at the command line', () => {
  it('validate prints the shape of a workflow: tasks, levels, concurrency', async () => {
    const ws = workspace('workflow-parallel-research-openai.yaml');
    const result = await runCli(['validate', 'workflow-parallel-research-openai.yaml'], ws);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('workflow-parallel-research-openai.yaml: valid (workflow, 4 tasks in 3 levels: overview → technical, applications → synthesis, max_parallel 2, provider openai)\n');
    expect(result.stderr).toBe('');
  });

  it('validate prints the branches of a parallel spec and its reduce', async () => {
    const ws = workspace('parallel-hitl-branch-demo.yaml');
    const result = await runCli(['validate', 'parallel-hitl-branch-demo.yaml'], ws);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('parallel-hitl-branch-demo.yaml: valid (parallel, 2 branches (web_research 3 steps, docs_research 1 step), then reduce (aggregator), max_parallel 5 (default), provider openai), 3 warnings\n');
    // It takes its topic from --var (no inputs block): validate warns where it is used, run refuses without it; and its
    // hitl step's timeout_seconds, which acode does not act on.
    expect(result.stderr).toMatch(/warning: template .*undefined variable '.*'.*\(acode run refuses this without it\)/);
  });

  it('validate names a dependency cycle at its line, exit 2 without a trace', async () => {
    const ws = workspace();
    const spec = readFileSync(join(examples, 'workflow-linear-dag-openai.yaml'), 'utf8').replace('      - id: collect\n        agent: analyst\n', '      - id: collect\n        agent: analyst\n        deps: [recommend]\n');
    writeFileSync(join(ws.cwd, 'dag.yaml'), spec);
    const result = await runCli(['validate', 'dag.yaml'], ws);
    expect(result.code).toBe(2);
    const line = spec.split('\n').findIndex((l) => l.includes('deps: [collect]')) + 1;
    expect(result.stderr).toContain(`dag.yaml:${line}:15: error: tasks depend on each other in a cycle, so none of them can start: collect → analyze → recommend → collect`);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('validate resolves a $ref agent relative to the spec', async () => {
    const ws = workspace();
    mkdirSync(join(ws.cwd, 'examples'));
    cpSync(join(examples, 'customer-support-intake-composite-openai.yaml'), join(ws.cwd, 'examples', 'intake.yaml'));
    const missing = await runCli(['validate', 'examples/intake.yaml'], ws);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^examples\/intake\.yaml:\d+:\d+: error: agents\.summarize\.\$ref: cannot read \.\.\/agents\/atomic\/summarize_customer_email\/summarize_customer_email\.yaml \(no such file;/m);
    cpSync('test/fixtures/agents', join(ws.cwd, 'agents'), { recursive: true });
    const found = await runCli(['validate', 'examples/intake.yaml'], ws);
    expect(found.code).toBe(0);
    expect(found.stdout).toContain('valid (workflow, 2 tasks in 2 levels: summarize → classify');
  });

  it.each([
    ['workflow-parallel-research-openai.yaml', ['overview', 'technical', 'applications', 'synthesis']],
    ['parallel-with-reduce.yaml', ['reduce']],
  ])('runs %s to completion against an OpenAI-compatible server, every task once', async (file, ids) => {
    const ws = workspace(file);
    const result = await runCli(['run', file, '--json', '--var', 'topic=edge computing'], { ...ws, env: { ...ws.env, OPENAI_BASE_URL: `${fixture.current().baseUrl}` } });
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as { session_id: string; status: string; steps_total: number; steps_executed: number };
    expect(summary).toMatchObject({ status: 'completed' });
    expect(summary.steps_executed).toBe(summary.steps_total);
    expect(fixture.current().server.requests).toHaveLength(summary.steps_total);
    const history = JSON.parse((await runCli(['sessions', 'history', summary.session_id, '--json'], ws)).stdout) as { type: string; step?: string }[];
    const completed = history.filter((e) => e.type === 'step_completed').map((e) => e.step);
    for (const id of ids) expect(completed).toContain(id);
    expect(new Set(completed).size).toBe(summary.steps_total);
    expect(sessions(ws)).toEqual([summary.session_id]);
  });
});
