import { describe, expect, it, vi } from 'vitest';
import type { EngineEvent, EngineEventBody } from '../../source/engine/events.js';
import { initialProgress } from '../../source/engine/session-progress.js';
import { patternFor } from '../../source/engine/patterns/pattern-for.js';
import { loadSpecFile } from '../../source/spec/load-spec.js';
import type { WorkflowSpec } from '../../source/spec/schema.js';
import { createRunStore } from '../../source/state/run-store.js';
import { RunView } from '../../source/ui/run/run-view.js';
import { renderInk } from '../helpers/ink.js';

const examples = 'test/fixtures/strands-examples';
const usage = { input: 1200, output: 3400 };
const spinner = '[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]';

/** The run view of a spec's real shape (as `acode run` builds it), fed engine events by hand. */
function setup(spec: WorkflowSpec, forkOf?: string) {
  const pattern = patternFor(spec);
  const answerApproval = vi.fn();
  const store = createRunStore({
    sessionId: 'abcd1234abcd1234',
    workflowName: spec.name,
    pattern: pattern.type,
    steps: pattern.shape(initialProgress(0)),
    controls: { cancel: vi.fn(), retryNow: vi.fn(), abandonRetry: vi.fn(), answerApproval },
    now: () => 0,
    ...(forkOf ? { forkOf } : {}),
  });
  const ui = renderInk(<RunView store={store} onForceQuit={vi.fn()} />);
  let id = 0;
  const apply = (body: EngineEventBody) => store.getState().apply({ ...body, event_id: ++id, ts: new Date(0).toISOString() } as EngineEvent);
  const started = (skipped = 0) => apply({ type: 'session_started', workflow_name: spec.name, steps_total: pattern.shape(initialProgress(0)).length, resumed: skipped > 0, steps_skipped: skipped, tokens: { input: 0, output: 0 } });
  const start = (step: string, agent: string) => apply({ type: 'step_started', step, agent, attempt: 1, idempotency_key: `k-${step}` });
  const complete = (step: string, agent: string) => apply({ type: 'step_completed', step, agent, attempt: 1, idempotency_key: `k-${step}`, response: 'r', usage, duration_ms: 1500 });
  return { store, ui, apply, started, start, complete, answerApproval };
}

const spec = (file: string) => loadSpecFile(`${examples}/${file}`).spec;

/** A workflow of `levels` levels of `width` tasks, each task depending on every task of the level before. */
function wideWorkflow(levels: number, width: number): WorkflowSpec {
  const base = spec('workflow-parallel-research-openai.yaml');
  const tasks = Array.from({ length: levels }, (_, level) =>
    Array.from({ length: width }, (_, i) => ({ id: `t${level}_${i}`, agent: 'researcher', input: 'go', ...(level ? { deps: Array.from({ length: width }, (_, j) => `t${level - 1}_${j}`) } : {}) })),
  ).flat();
  return { ...base, pattern: { type: 'workflow', config: { tasks } } } as WorkflowSpec;
}

describe('the run view of a workflow', () => {
  it('draws the DAG by level, one spinner a level: on its first running task, ● on the others running at once', async () => {
    const { ui, started, start, complete } = setup(spec('workflow-parallel-research-openai.yaml'));
    started();
    start('overview', 'researcher');
    complete('overview', 'researcher');
    start('technical', 'researcher');
    start('applications', 'researcher');
    const frame = await ui.waitForFrame((f) => f.includes('2 running'));
    expect(frame).toContain('acode workflow-parallel-research-openai · 4 tasks in 3 levels · session abcd1234abcd1234');
    // Level 1 finished: printed once, above what runs.
    expect(frame).toMatch(/✓ level 1 · 1\/1 done\n +✓ overview +researcher 1\.5s · 1\.2k in \/ 3\.4k out/);
    expect(frame).toMatch(/▸ level 2 · 0\/2 done · 2 running/);
    expect(frame).toMatch(new RegExp(`${spinner} technical +researcher`));
    expect(frame).toMatch(/● applications +researcher/);
    expect(frame.match(new RegExp(spinner, 'g'))).toHaveLength(1);
    expect(frame).toMatch(/○ level 3 · 0\/1 done\n +○ synthesis +researcher/);
    expect(frame).toContain('1/4 done · 0 skipped (completed earlier) · 3 remaining · 2 running · tokens 1.2k in / 3.4k out');
    expect(frame.indexOf('level 1')).toBeLessThan(frame.indexOf('level 2'));
  });

  it('prints a level once it has finished, in the order levels finish, and shows a failed task', async () => {
    const { ui, apply, started, start, complete } = setup(spec('workflow-parallel-research-openai.yaml'));
    started();
    start('overview', 'researcher');
    complete('overview', 'researcher');
    start('technical', 'researcher');
    start('applications', 'researcher');
    complete('applications', 'researcher');
    apply({ type: 'step_failed', step: 'technical', attempt: 1, reason: 'provider_error', message: 'HTTP 500', retryable: false });
    apply({ type: 'session_failed', reason: 'provider_error', message: 'task technical: HTTP 500', step: 'technical' });
    const frame = await ui.waitForFrame((f) => f.includes('✗ failed'));
    expect(frame).toMatch(/✗ level 2 · 1\/2 done · 1 failed/);
    expect(frame).toMatch(/✗ technical +researcher HTTP 500/);
    expect(frame).toMatch(/✓ applications +researcher 1\.5s/);
    // What depends on the failed task never started.
    expect(frame).toMatch(/○ level 3 · 0\/1 done\n +○ synthesis/);
    expect(frame).not.toMatch(new RegExp(`${spinner}|▸`));
  });

  it('fits a large DAG to the terminal: running tasks stay, waiting levels fold into one line', async () => {
    const { ui, started, start } = setup(wideWorkflow(30, 4));
    started();
    for (let i = 0; i < 4; i++) start(`t0_${i}`, 'researcher');
    const frame = await ui.waitForFrame((f) => f.includes('4 running'));
    // ink-testing-library reports no height: the view assumes 30 rows.
    expect(frame.split('\n').length).toBeLessThanOrEqual(30);
    // Every running task keeps its row; the level spins one spinner (each is a timer of its own).
    expect(frame.match(new RegExp(`${spinner} t0_\\d`, 'g'))).toHaveLength(1);
    expect(frame.match(/● t0_\d/g)).toHaveLength(3);
    expect(frame).toMatch(/… \d+ more levels \(\d+ steps\)/);
    expect(frame).toContain('0/120 done');
  });
});

describe('the run view of a parallel run', () => {
  it('draws each branch with its counts, runs branches side by side and names the step an approval is for', async () => {
    const { ui, store, started, start, complete, apply } = setup(spec('parallel-hitl-branch-demo.yaml'));
    started();
    start('web_research/0', 'web_scraper');
    start('docs_research/0', 'docs_reader');
    let frame = await ui.waitForFrame((f) => f.includes('2 running'));
    expect(frame).toContain('acode parallel-hitl-branch-demo · 5 steps in 2 branches, then reduce · session abcd1234abcd1234');
    expect(frame).toMatch(new RegExp(`▸ branch web_research · 0/3 done · 1 running\\n +${spinner} web_research/1 web_scraper \\S+s\\n +○ web_research/2 approval\\n +○ web_research/3 data_validator`));
    expect(frame).toMatch(new RegExp(`▸ branch docs_research · 0/1 done · 1 running\\n +${spinner} docs_research/1 docs_reader`));
    expect(frame).toMatch(/○ reduce aggregator/);

    complete('web_research/0', 'web_scraper');
    start('web_research/1', 'approval');
    apply({ type: 'approval_requested', step: 'web_research/1', attempt: 1, prompt: 'Review the scraped web data', context: '### Scraped Web Data', default_response: 'approved' });
    store.getState().askApproval({ step: 'web_research/1', prompt: 'Review the scraped web data', context: '### Scraped Web Data', defaultResponse: 'approved' });
    frame = await ui.waitForFrame((f) => f.includes('approval needed'));
    expect(frame).toContain('approval needed · step web_research/2');
    expect(frame).toMatch(/◷ branch web_research · 1\/3 done · 1 waiting/);
    expect(frame).toMatch(/◷ web_research\/2 approval +awaiting approval/);
    // The other branch goes on while the question waits: Ctrl+C would pause it, not just leave the question.
    expect(frame).toMatch(new RegExp(`${spinner} docs_research/1 docs_reader`));
    expect(store.getState().phase).toBe('running');
    expect(frame).not.toContain('keeps waiting for its answer');

    complete('docs_research/0', 'docs_reader');
    frame = await ui.waitForFrame((f) => f.includes('✓ branch docs_research'));
    expect(frame).toMatch(/✓ branch docs_research · 1\/1 done\n +✓ docs_research\/1 docs_reader 1\.5s/);
    expect(frame.indexOf('branch docs_research')).toBeLessThan(frame.indexOf('branch web_research'));
    // Nothing runs any more: only the question is open.
    expect(frame).toContain('Ctrl+C pause (the session keeps waiting for its answer)');
  });

  it('counts the steps skipped on resume per branch', async () => {
    const { ui, apply, started, start } = setup(spec('parallel-hitl-branch-demo.yaml'));
    started(2);
    apply({ type: 'step_skipped', step: 'web_research/0', agent: 'web_scraper' });
    apply({ type: 'step_skipped', step: 'docs_research/0', agent: 'docs_reader' });
    start('web_research/1', 'approval');
    const frame = await ui.waitForFrame((f) => f.includes('1 running'));
    expect(frame).toContain('(resumed)');
    expect(frame).toMatch(/✓ branch docs_research · 1\/1 done · 1 skipped\n +↷ docs_research\/1 docs_reader completed earlier/);
    expect(frame).toMatch(/▸ branch web_research · 1\/3 done · 1 skipped · 1 running\n +↷ web_research\/1 web_scraper completed earlier/);
    expect(frame).toContain('2/5 done · 2 skipped (completed earlier) · 3 remaining · 1 running');
  });

  it("counts a fork's steps taken from its source as reused per branch, not skipped", async () => {
    const { ui, apply, started, start } = setup(spec('parallel-hitl-branch-demo.yaml'), '5f5637338d37b7e9');
    started(2);
    apply({ type: 'step_skipped', step: 'web_research/0', agent: 'web_scraper' });
    apply({ type: 'step_skipped', step: 'docs_research/0', agent: 'docs_reader' });
    start('web_research/1', 'approval');
    const frame = await ui.waitForFrame((f) => f.includes('1 running'));
    expect(frame).toMatch(/✓ branch docs_research · 1\/1 done · 1 reused\n +↷ docs_research\/1 docs_reader reused/);
    expect(frame).toMatch(/▸ branch web_research · 1\/3 done · 1 reused · 1 running\n +↷ web_research\/1 web_scraper reused/);
    expect(frame).toContain('2/5 done · 2 reused from 5f5637338d37b7e9 · 3 remaining · 1 running');
    expect(frame).not.toMatch(/skipped|completed earlier/);
  });

  it('ends with every branch and the reduce printed, and the artifacts', async () => {
    const { ui, apply, started, start, complete } = setup(spec('parallel-with-reduce.yaml'));
    started();
    for (const branch of ['academic_perspective', 'industry_perspective', 'regulatory_perspective']) start(`${branch}/0`, 'researcher');
    const running = await ui.waitForFrame((f) => f.includes('3 running'));
    // Three branches, three lanes: a spinner on each.
    expect(running.match(new RegExp(`${spinner} \\w+_perspective/1 researcher`, 'g'))).toHaveLength(3);
    for (const branch of ['industry_perspective', 'academic_perspective', 'regulatory_perspective']) complete(`${branch}/0`, 'researcher');
    start('reduce', 'synthesizer');
    complete('reduce', 'synthesizer');
    apply({ type: 'artifact_written', path: '/tmp/out/parallel-synthesis.md', bytes: 3, sha256: 'x' });
    apply({ type: 'session_completed', tokens: usage });
    const frame = await ui.waitForFrame((f) => f.includes('✓ completed'));
    // In the order they finished.
    const order = ['branch industry_perspective', 'branch academic_perspective', 'branch regulatory_perspective', '✓ reduce synthesizer'].map((text) => frame.indexOf(text));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(frame).toContain('4/4 done · 0 skipped (completed earlier) · 0 remaining · 0 running');
    expect(frame).toContain('wrote /tmp/out/parallel-synthesis.md');
  });
});
