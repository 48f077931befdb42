import { describe, expect, it } from 'vitest';
import { patternFor } from '../../source/engine/patterns/pattern-for.js';
import { loadSpecText } from '../../source/spec/load-spec.js';

/** Hostile review (issue #13): a workflow whose tasks form one long line of dependencies. */

function deepWorkflow(tasks: number): string {
  const lines = Array.from({ length: tasks }, (_, i) => `      - { id: t${i}, agent: w, input: "step ${i}"${i ? `, deps: [t${i - 1}]` : ''} }`);
  return ['version: 0', 'name: deep', 'runtime:', '  provider: scripted', '  model_id: m', 'agents:', '  w: { prompt: "worker" }', 'pattern:', '  type: workflow', '  config:', '    tasks:', ...lines, ''].join('\n');
}

describe('review: a deep workflow', () => {
  // DEFECT (open): spec/template-scopes.ts calls taskAncestors (spec/task-graph.ts, recursive, rebuilding
  // its id map each call) once per task, and engine/patterns/workflow.ts keeps every task's ancestor set:
  // O(n²) time and memory in the depth of the graph. Measured with the built CLI: `acode validate` of
  // 2,000 tasks in a line 5.5 s and 370 MB; of 20,000, killed by V8 out of memory after 124 s at 4.3 GB
  // (before that, the recursion alone overflows the stack in workflowPattern).
  it.fails('3,000 tasks in a line validate and make their pattern in well under a second', () => {
    const text = deepWorkflow(3000);
    const started = performance.now();
    const { spec } = loadSpecText(text, 'deep.yaml');
    const pattern = patternFor(spec);
    const elapsed = performance.now() - started;
    expect(pattern.shape({ completed: {} } as never)).toHaveLength(3000);
    expect(elapsed).toBeLessThan(1000);
  }, 120_000);
});
