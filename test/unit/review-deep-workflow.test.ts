import { describe, expect, it } from 'vitest';
import { patternFor } from '../../source/engine/patterns/pattern-for.js';
import { loadSpecText } from '../../source/spec/load-spec.js';

/** Hostile review (issue #13): a workflow whose tasks form one long line of dependencies. */

function deepWorkflow(tasks: number): string {
  // Each task reads the one before it, so every template's reference is checked against the graph.
  const read = (i: number) => (i ? ` {{ tasks.t${i - 1}.response }}` : '');
  const lines = Array.from({ length: tasks }, (_, i) => `      - { id: t${i}, agent: w, input: "step ${i}${read(i)}"${i ? `, deps: [t${i - 1}]` : ''} }`);
  return ['version: 0', 'name: deep', 'runtime:', '  provider: scripted', '  model_id: m', 'agents:', '  w: { prompt: "worker" }', 'pattern:', '  type: workflow', '  config:', '    tasks:', ...lines, ''].join('\n');
}

/** Validates the spec and makes its pattern; the least of `runs` timings, so a busy machine's pauses fall out. */
function fastest(tasks: number, runs: number): number {
  const text = deepWorkflow(tasks);
  let best = Infinity;
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    const { spec } = loadSpecText(text, 'deep.yaml');
    const pattern = patternFor(spec);
    best = Math.min(best, performance.now() - started);
    expect(pattern.shape({ completed: {} } as never)).toHaveLength(tasks);
    expect(pattern.context(`t${tasks - 1}`, { completed: { [`t${tasks - 2}`]: { response: 'r' } } } as never, {}).tasks).toEqual({ [`t${tasks - 2}`]: { response: 'r', status: 'success' } });
  }
  return best;
}

describe('review: a deep workflow', () => {
  // Was O(n²) in the graph's depth: every task's ancestor set was built (recursively, rebuilding an
  // id map each time) and kept — `acode validate` of 2,000 tasks in a line took 5.5 s and 370 MB, of
  // 20,000 ran out of memory. Linear now: five times the tasks cost about five times as long
  // (quadratic would be 25 times).
  it('costs time in proportion to its tasks, not to their square', () => {
    fastest(500, 1);
    const small = fastest(1000, 3);
    const large = fastest(5000, 2);
    expect(large / small).toBeLessThan(10);
  }, 120_000);
});
