import { describe, expect, it } from 'vitest';
import type { Pattern } from '../../source/engine/pattern.js';
import { answerJson } from '../../source/engine/patterns/answer-json.js';
import { readEvaluation } from '../../source/engine/patterns/evaluator-optimizer.js';
import { conditionTemplate } from '../../source/engine/patterns/graph.js';
import { maxSubtasks, readPlan } from '../../source/engine/patterns/orchestrator-workers.js';
import { patternFor } from '../../source/engine/patterns/pattern-for.js';
import { readRoute } from '../../source/engine/patterns/routing.js';
import { applyEvent, initialProgress, type SessionProgress } from '../../source/engine/session-progress.js';
import { loadSpecText } from '../../source/spec/load-spec.js';
import { renderTemplate } from '../../source/spec/template.js';
import { templateLimits } from '../../source/spec/template-limits.js';

const head = 'version: 0\nname: t\nruntime: { provider: scripted }\nagents:\n  a: { prompt: "p" }\n  b: { prompt: "p" }\n';

function patternOf(body: string): Pattern {
  return patternFor(loadSpecText(`${head}${body}`, 'spec.yaml').spec);
}

/** Completes a step with an answer, as the executor's events do. */
function answer(progress: SessionProgress, step: string, response: string): void {
  const stamp = { event_id: progress.last_event_id + 1, ts: new Date(0).toISOString(), epoch: 0 };
  applyEvent(progress, { type: 'step_started', step, agent: 'a', attempt: 1, idempotency_key: `s:${step}:1`, ...stamp });
  applyEvent(progress, { type: 'step_completed', step, agent: 'a', attempt: 1, idempotency_key: `s:${step}:1`, response, usage: { input: 1, output: 1 }, duration_ms: 1, ...stamp, event_id: stamp.event_id + 1 });
}

const readyIds = (pattern: Pattern, progress: SessionProgress) => pattern.ready(progress).map((step) => step.id);

describe("reading a model's decision as strands-cli reads it", () => {
  it('takes the JSON whole, fenced, or the first object inside prose', () => {
    expect(readRoute('{"route": "faq"}')).toBe('faq');
    expect(readRoute('Sure:\n```json\n{"route": "technical"}\n```')).toBe('technical');
    expect(readRoute('I pick {"route": "escalate", "why": "angry"} for this')).toBe('escalate');
    expect(readRoute('faq')).toBeUndefined();
    expect(readRoute('["faq"]')).toBeUndefined();
  });

  it('reads a score from 0 to 100 with lists of strings, and nothing else', () => {
    expect(readEvaluation('{"score": 85, "issues": ["a"], "fixes": []}')).toEqual({ score: 85, issues: ['a'], fixes: [] });
    expect(readEvaluation('{"score": "72"}')).toEqual({ score: 72, issues: [], fixes: [] });
    expect(readEvaluation('{"score": 101}')).toBeUndefined();
    expect(readEvaluation('{"score": 50, "issues": "one"}')).toBeUndefined();
    expect(readEvaluation('looks good, 9/10')).toBeUndefined();
  });

  it("reads a plan's subtasks from objects with task, plain strings, or one object", () => {
    expect(readPlan('[{"task": "x"}, "y", {"other": 1}]')).toEqual(['x', 'y', '{"other":1}']);
    expect(readPlan('```\n{"task": "only"}\n```')).toEqual(['only']);
    expect(readPlan('[]')).toEqual([]);
    expect(readPlan('no plan here')).toBeUndefined();
  });

  it('stays linear on an answer of a million opening brackets', () => {
    const started = performance.now();
    expect(answerJson('{'.repeat(1_000_000), 'object', 'route')).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("turns a graph condition into a template, else into none", () => {
    expect(conditionTemplate("{{ 'a' in nodes.x.response }}")).toBe("{% if 'a' in nodes.x.response %}true{% else %}false{% endif %}");
    expect(conditionTemplate(' else ')).toBeUndefined();
  });
});

describe('routing', () => {
  const spec = 'pattern:\n  type: routing\n  config:\n    router: { agent: a, input: "q", max_retries: 1 }\n    routes:\n      one: { then: [ { agent: b, input: "1" } ] }\n      two: { then: [ { agent: b, input: "2a" }, { agent: b, input: "2b" } ] }\n';

  // FIXED: a route name of a million characters was echoed whole: a 1 MB failure message on stderr and in
  // session.json, each router try's detail in sessions show (7 MB), each retry's request to the model.
  it('names a route the spec lacks by its start only, however long the name the router answered', () => {
    const pattern = patternOf(spec);
    const progress = initialProgress(0);
    const long = `${'x'.repeat(1_000_000)}\u001b[2J`;
    answer(progress, 'router', JSON.stringify({ route: long }));
    const [retry] = pattern.ready(progress);
    expect(retry?.work.kind === 'agent' && typeof retry.work.append === 'string' ? retry.work.append.length : Infinity).toBeLessThan(1000);
    answer(progress, 'router#2', JSON.stringify({ route: long }));
    const halt = pattern.halted?.(progress);
    expect(halt).toMatchObject({ outcome: 'failed', reason: 'unreadable_answer', message: expect.stringContaining("named route 'xxxx") });
    expect(halt!.message.length).toBeLessThan(1000);
    for (const node of pattern.shape(progress)) expect(node.detail?.length ?? 0).toBeLessThan(200);
  });

  it('asks the router again after an answer naming no route the spec has, telling it the valid routes', () => {
    const pattern = patternOf(spec);
    const progress = initialProgress(0);
    expect(readyIds(pattern, progress)).toEqual(['router']);
    answer(progress, 'router', '{"route": "three"}');
    const [retry] = pattern.ready(progress);
    expect(retry?.id).toBe('router#2');
    expect(retry?.work.kind === 'agent' && typeof retry.work.append === 'string' ? retry.work.append : '').toContain("chose 'three', which is not a route. Valid routes: one, two");
    answer(progress, 'router#2', '{"route": "two"}');
    expect(readyIds(pattern, progress)).toEqual(['two/0']);
    answer(progress, 'two/0', 'x');
    expect(pattern.context('two/1', progress, {})).toMatchObject({ router: { chosen_route: 'two', response: '{"route": "two"}' }, steps: [{ index: 0, response: 'x' }], last_response: 'x' });
  });

  it('fails, naming what the router said, once max_retries more tries named no route', () => {
    const pattern = patternOf(spec);
    const progress = initialProgress(0);
    answer(progress, 'router', 'hmm');
    answer(progress, 'router#2', 'still hmm');
    expect(pattern.ready(progress)).toEqual([]);
    expect(pattern.finished(progress)).toBe(false);
    expect(pattern.halted?.(progress)).toMatchObject({ outcome: 'failed', reason: 'unreadable_answer', message: expect.stringContaining('no route in its answer ("still hmm") on each of its 2 tries') });
  });
});

describe('evaluator_optimizer', () => {
  const spec = 'pattern:\n  type: evaluator_optimizer\n  config:\n    producer: a\n    evaluator: { agent: b }\n    accept: { min_score: 80, max_iters: 2 }\n';

  it('re-asks an evaluator once, then revises with the evaluation, and takes the best draft after max_iters, saying so', () => {
    const pattern = patternOf(spec);
    const progress = initialProgress(0);
    answer(progress, 'draft/1', 'first');
    answer(progress, 'eval/1', 'good I guess');
    expect(readyIds(pattern, progress)).toEqual(['eval/1#2']);
    answer(progress, 'eval/1#2', '{"score": 70, "issues": ["short"]}');
    expect(readyIds(pattern, progress)).toEqual(['draft/2']);
    expect(pattern.context('draft/2', progress, {})).toMatchObject({ draft: 'first', iteration: 2, evaluation: { score: 70, issues: ['short'], fixes: [] } });
    answer(progress, 'draft/2', 'second');
    answer(progress, 'eval/2', '{"score": 60}');
    expect(pattern.finished(progress)).toBe(true);
    expect(pattern.artifactContext(progress, {})).toMatchObject({ last_response: 'first', accepted: false, final_score: 70, iterations: 2 });
    expect(pattern.outcome?.(progress)).toBe('no draft reached min_score 80 in 2 iterations: the best, iteration 1 with score 70, is the result');
  });
});

describe('orchestrator_workers', () => {
  const spec = 'pattern:\n  type: orchestrator_workers\n  config:\n    orchestrator: { agent: a, limits: { max_workers: 2 } }\n    worker_template: { agent: b }\n    reduce: { agent: a, input: "{{ num_workers }}" }\n';

  it('offers at most max_workers unfinished workers at once, then the reduce once all are done', () => {
    const pattern = patternOf(spec);
    const progress = initialProgress(0);
    answer(progress, 'plan', '["w0", "w1", "w2", "w3"]');
    expect(readyIds(pattern, progress)).toEqual(['worker/0', 'worker/1']);
    answer(progress, 'worker/1', 'done 1');
    expect(readyIds(pattern, progress)).toEqual(['worker/0', 'worker/2']);
    for (const id of ['worker/0', 'worker/2', 'worker/3']) answer(progress, id, `done ${id}`);
    expect(readyIds(pattern, progress)).toEqual(['reduce']);
    expect(pattern.context('reduce', progress, {})).toMatchObject({ num_workers: 4, workers: [{ task: 'w0' }, { task: 'w1' }, { task: 'w2' }, { task: 'w3' }] });
  });

  it('fails after three tries that held no plan', () => {
    const pattern = patternOf(spec);
    const progress = initialProgress(0);
    for (const id of ['plan', 'plan#2', 'plan#3']) answer(progress, id, 'I would split it up');
    expect(pattern.halted?.(progress)).toMatchObject({ outcome: 'failed', reason: 'unreadable_answer' });
  });

  // FIXED: a plan of 200,000 subtasks (a 1 MiB answer) crashed the run with a stack trace (RangeError: Maximum call stack
  // size exceeded, spreading its workers into a list), and would have started 200,000 paid model calls.
  it(`fails on a plan of more than ${maxSubtasks.toLocaleString('en-US')} subtasks, naming the limit, before any worker runs`, () => {
    const pattern = patternOf(spec);
    const progress = initialProgress(0);
    answer(progress, 'plan', JSON.stringify(Array.from({ length: 200_000 }, () => 'a')));
    expect(pattern.ready(progress)).toEqual([]);
    expect(pattern.halted?.(progress)).toMatchObject({ outcome: 'failed', reason: 'pattern_limit', message: expect.stringContaining(`planned 200,000 subtasks, past the limit of ${maxSubtasks.toLocaleString('en-US')} for one round`) });
    expect(pattern.shape(progress).length).toBeLessThan(10);
  });

  // FIXED: 600 workers answering 1 MB each: the reduce's context joined every answer into last_response — past what a
  // JavaScript string can hold, a stack trace (RangeError: Invalid string length) at each run and resume.
  it('gives the reduce the workers joined up to the most a template writes: a template that writes them fails at that limit, clearly', () => {
    const pattern = patternOf(spec);
    const progress = initialProgress(0);
    answer(progress, 'plan', JSON.stringify(Array.from({ length: 600 }, (_, i) => `t${i}`)));
    const long = 'y'.repeat(1_000_000);
    for (let i = 0; i < 600; i++) answer(progress, `worker/${i}`, long);
    expect(readyIds(pattern, progress)).toEqual(['reduce']);
    const context = pattern.context('reduce', progress, {});
    expect(context.num_workers).toBe(600);
    expect((context.last_response as string).length).toBeLessThan(2 * templateLimits.outputChars);
    expect(() => renderTemplate('{{ last_response }}', context)).toThrow(/wrote more than 64 Mi characters/);
    expect(renderTemplate('{{ num_workers }} workers', context)).toBe('600 workers');
    expect(() => pattern.artifactContext?.(progress, {})).not.toThrow();
  });

  it(`runs a plan of exactly ${maxSubtasks.toLocaleString('en-US')} subtasks`, () => {
    const pattern = patternOf(spec);
    const progress = initialProgress(0);
    answer(progress, 'plan', JSON.stringify(Array.from({ length: maxSubtasks }, (_, i) => `t${i}`)));
    expect(readyIds(pattern, progress)).toEqual(['worker/0', 'worker/1']);
    expect(pattern.halted?.(progress)).toBeUndefined();
  });
});

describe('graph', () => {
  const spec = 'pattern:\n  type: graph\n  config:\n    max_iterations: 2\n    nodes:\n      w: { agent: a, input: "w" }\n      r: { agent: b, input: "r" }\n      done: { agent: a, input: "d" }\n    edges:\n      - { from: w, to: r }\n      - from: r\n        choose:\n          - { when: "{{ \'ok\' in nodes.r.response.lower() }}", to: done }\n          - { when: else, to: w }\n';

  it('walks the edges over the recorded answers, and pauses before a node runs past max_iterations', () => {
    const pattern = patternOf(spec);
    const progress = initialProgress(0);
    answer(progress, 'w', 'v1');
    answer(progress, 'r', 'no');
    expect(readyIds(pattern, progress)).toEqual(['w@2']);
    answer(progress, 'w@2', 'v2');
    answer(progress, 'r@2', 'still no');
    expect(pattern.ready(progress)).toEqual([]);
    expect(pattern.halted?.(progress)).toMatchObject({ outcome: 'paused', reason: 'pattern_limit', message: expect.stringContaining("node 'w' would run a 3rd time, past pattern.config.max_iterations 2") });
  });

  it('ends at the node a condition leads to that has no edge out', () => {
    const pattern = patternOf(spec);
    const progress = initialProgress(0);
    answer(progress, 'w', 'v1');
    answer(progress, 'r', 'OK then');
    answer(progress, 'done', 'shipped');
    expect(pattern.finished(progress)).toBe(true);
    expect(pattern.artifactContext(progress, {})).toMatchObject({ terminal_node: 'done', total_steps: 3, execution_path: ['w', 'r', 'done'], last_response: 'shipped' });
  });
});
