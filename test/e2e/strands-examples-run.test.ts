import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { checkSpecText } from '../../source/spec/load-spec.js';
import type { WorkflowSpec } from '../../source/spec/schema.js';
import { readEventLog } from '../../source/store/event-log.js';
import { runCli } from '../helpers/cli.js';
import { exampleNeeds } from '../helpers/example-needs.js';
import { OpenAiTestServer } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const dir = 'test/fixtures/strands-examples';

/** Every example in the folder, its pattern, and (if acode accepts it) what it needs to run. */
const folder = readdirSync(dir)
  .filter((file) => file.endsWith('.yaml'))
  .sort()
  .map((file) => {
    const text = readFileSync(join(dir, file), 'utf8');
    const { spec } = checkSpecText(text, join(dir, file));
    return { file, pattern: String((parse(text) as { pattern: { type: string } }).pattern.type), needs: spec ? exampleNeeds(spec) : undefined, spec };
  });
const examples = folder.flatMap((e) => (e.needs ? [{ ...e, needs: e.needs }] : []));

/** The ones a loopback OpenAI server can answer alone: the openai provider and no tools. */
const runnable = examples.filter((e) => e.needs.providers.every((p) => p === 'openai') && e.needs.tools.length === 0);

/**
 * What the loopback model answers an example: its usual answer, but a decision where a pattern asks
 * for one — the spec's first route to a router, a passing score to an evaluator, two subtasks to an
 * orchestrator (a graph's conditions read the usual answers and take their `else`).
 */
function decisions(spec: WorkflowSpec | undefined): OpenAiTestServer['handler'] {
  const pattern = spec?.pattern;
  const route = pattern?.type === 'routing' ? Object.keys(pattern.config.routes)[0] : undefined;
  return (request) => {
    if (route !== undefined && request.user.includes('{"route": "<route_name>"}')) return { kind: 'answer', text: JSON.stringify({ route }) };
    if (request.user.startsWith('You are an orchestrator agent.')) return { kind: 'answer', text: '[{"task": "first part"}, {"task": "second part"}]' };
    // A later round: nothing more to do.
    if (request.user.includes('If the task needs more work, respond with ONLY a JSON array')) return { kind: 'answer', text: '[]' };
    if (pattern?.type === 'evaluator_optimizer' && request.system.startsWith(promptHead(spec, pattern.config.evaluator.agent))) return { kind: 'answer', text: '{"score": 95, "issues": [], "fixes": []}' };
    return { kind: 'answer' };
  };
}

/** How an agent's prompt starts as sent: its text up to its first template. */
const promptHead = (spec: WorkflowSpec | undefined, agent: string) => (spec?.agents[agent]?.prompt ?? '').split(/\{[{%]/)[0]!.slice(0, 80) || '\u0000';

interface Outcome {
  file: string;
  pattern: string;
  summary: Summary;
  /** Requests the model server received: one per agent step when none is asked twice. */
  requests: number;
  /** How many `acode resume --approve` it took: an approval waits for one when no terminal can answer it. */
  resumes: number;
  /** Artifacts the run reported that are not on disk. */
  missing: string[];
  /** Agent steps the session completed (approvals are a person's): each one model request. */
  agentSteps: number;
  log: string;
}

interface Summary {
  session_id: string;
  status: string;
  steps_total: number;
  steps_executed: number;
  steps_skipped: number;
  artifacts: string[];
}

/**
 * Runs one example unchanged, as a person would: copied into a project folder beside strands-cli's
 * `agents/` (two examples `$ref` them as ../agents), every input given with --var, approvals left
 * waiting (no terminal) and answered with `acode resume --approve`.
 */
async function runExample(example: (typeof runnable)[number]): Promise<Outcome> {
  const server = new OpenAiTestServer();
  server.handler = decisions(example.spec);
  const baseUrl = await server.start();
  try {
    const cwd = tempDir();
    mkdirSync(join(cwd, 'examples'));
    cpSync(join(dir, example.file), join(cwd, 'examples', example.file));
    cpSync('test/fixtures/agents', join(cwd, 'agents'), { recursive: true });
    const ws = { cwd, env: { ACODE_HOME: join(cwd, '.home'), OPENAI_API_KEY: 'sk-test-not-used', OPENAI_BASE_URL: baseUrl } };
    const vars = example.needs.vars.flatMap((name) => ['--var', `${name}=the ${name}`]);
    let log = `$ acode run examples/${example.file}`;
    let result = await runCli(['run', `examples/${example.file}`, '--json', ...vars], ws);
    log += `\n${result.stderr}`;
    let summary = JSON.parse(result.stdout || '{}') as Summary;
    let resumes = 0;
    for (; summary.status === 'awaiting_approval' && resumes < example.needs.approvals; resumes++) {
      result = await runCli(['resume', summary.session_id, '--json', '--approve'], ws);
      log += `\n$ acode resume --approve\n${result.stderr}`;
      summary = JSON.parse(result.stdout || '{}') as Summary;
    }
    const missing = (summary.artifacts ?? []).filter((path) => !existsSync(resolve(cwd, path)));
    const events = summary.session_id ? readEventLog(join(cwd, '.home', 'sessions', summary.session_id, 'events.jsonl')) : [];
    const agentSteps = events.filter((event) => event.type === 'step_completed' && event.agent !== 'approval').length;
    return { file: example.file, pattern: example.pattern, summary, requests: server.requests.length, resumes, missing, log, agentSteps };
  } finally {
    await server.stop();
  }
}

/** Runs `work` over `items`, at most `limit` at once. */
async function inPool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

describe("strands-cli's examples, run unchanged against a loopback OpenAI server", () => {
  it('validates every workflow and parallel example at the command line, unchanged', async () => {
    const cwd = tempDir();
    cpSync(dir, join(cwd, 'examples'), { recursive: true });
    cpSync('test/fixtures/agents', join(cwd, 'agents'), { recursive: true });
    const files = examples.filter((e) => e.pattern === 'workflow' || e.pattern === 'parallel').map((e) => e.file);
    expect(files).toHaveLength(16);
    const results = await inPool(files, 4, (file) => runCli(['validate', `examples/${file}`], { cwd, env: { ACODE_HOME: join(cwd, '.home') } }));
    for (const [i, result] of results.entries()) {
      expect(result.code, `${files[i]}\n${result.stderr}`).toBe(0);
      expect(result.stdout, files[i]).toMatch(/: valid \((workflow|parallel),/);
    }
  }, 120_000);

  it('runs every accepted example that uses only the openai provider and no tools to completion', async () => {
    const outcomes = await inPool(runnable, 4, runExample);
    const patterns = [...new Set(folder.map((e) => e.pattern))];
    const count = (n: number) => String(n).padStart(3);
    const rows = patterns.map((p) => {
      const ran = outcomes.filter((o) => o.pattern === p);
      const completed = ran.filter((o) => o.summary.status === 'completed');
      return `  ${p.padEnd(22)} ${count(folder.filter((e) => e.pattern === p).length)} in the folder ${count(examples.filter((e) => e.pattern === p).length)} accepted ${count(ran.length)} ran ${count(completed.length)} completed`;
    });
    console.log(`strands-cli examples run offline (openai provider, no tools) against a loopback server:\n${rows.join('\n')}`);
    for (const o of outcomes.filter((o) => o.summary.status !== 'completed')) console.log(`NOT COMPLETED ${o.file}: ${o.log.split('\n').slice(-4).join(' | ')}`);
    for (const o of outcomes) {
      const example = runnable.find((e) => e.file === o.file)!;
      expect(o.summary.status, `${o.file}\n${o.log}`).toBe('completed');
      // A pattern that decides its steps while it runs knows how many once it has run them.
      if (example.needs.steps !== undefined) expect(o.summary.steps_total, o.file).toBe(example.needs.steps);
      expect(o.requests, `${o.file}: every agent step asked once`).toBe(o.agentSteps);
      // (A pattern that decides at run time may never reach its review: an evaluator's first draft passed.)
      if (example.needs.approvals > 0 && example.needs.steps !== undefined) expect(o.resumes, `${o.file}: its approval waited for a resume`).toBeGreaterThan(0);
      expect(o.missing, `${o.file}: artifacts reported but not written`).toEqual([]);
    }
    // Every example of the six patterns beside the chain that needs only the loopback server ran:
    // 12 workflow and parallel, and 15 routing, evaluator_optimizer, orchestrator_workers and graph.
    expect(outcomes.filter((o) => o.pattern !== 'chain').map((o) => o.file)).toEqual(
      runnable.filter((e) => e.pattern !== 'chain').map((e) => e.file),
    );
    expect(outcomes.filter((o) => o.pattern !== 'chain')).toHaveLength(27);
  }, 300_000);
});
