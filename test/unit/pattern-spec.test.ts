import { describe, expect, it } from 'vitest';
import { patternFor } from '../../source/engine/patterns/pattern-for.js';
import { checkSpecText, loadSpecText } from '../../source/spec/load-spec.js';
import { defaultMaxParallel, maxParallel } from '../../source/spec/max-parallel.js';
import { describePattern } from '../../source/spec/pattern-summary.js';
import { formatProblem } from '../../source/spec/spec-problem.js';
import { taskGraph, taskLevels, taskOrder } from '../../source/spec/task-graph.js';

const head = `version: 0
name: demo
runtime: { provider: openai, model_id: m }
inputs:
  values: { topic: durability }
agents:
  a: { prompt: "You research." }
  b: { prompt: "You write." }
`;

const workflow = `${head}pattern:
  type: workflow
  config:
    tasks:
      - id: overview
        agent: a
        input: "Overview of {{ topic }}"
      - id: technical
        agent: a
        deps: [overview]
        input: "{{ tasks.overview.response }}"
      - id: review
        type: hitl
        deps: [overview]
        prompt: "Approve?"
        context_display: "{{ tasks.overview.response }}"
      - id: report
        agent: b
        deps: [technical, review]
        description: "the final report"
        input: "{{ tasks.technical.response }} {{ tasks.overview.response }} {{ hitl_response }}"
outputs:
  artifacts:
    - path: report.md
      from: "{{ tasks.report.response }} {{ tasks.technical.status }} {{ last_response }}"
`;

const parallel = `${head}pattern:
  type: parallel
  config:
    branches:
      - id: web
        steps:
          - agent: a
            input: "Web on {{ topic }}"
          - type: hitl
            prompt: "Good? {{ steps[0].response }}"
          - agent: b
            input: "{{ steps[0].response }} {{ hitl_response }} {{ last_response }}"
      - id: docs
        steps:
          - agent: a
            input: "Docs on {{ topic }}"
    reduce:
      agent: b
      input: "{{ branches.web.response }} {{ branches['docs'].status }}"
outputs:
  artifacts:
    - path: out.md
      from: "{{ branches.docs.response }} {{ last_response }}"
`;

function problems(text: string): string[] {
  return checkSpecText(text, 'spec.yaml').problems.map(formatProblem);
}

describe('workflow specs', () => {
  it('load with their tasks, deps and hitl tasks, in levels', () => {
    const { spec, warnings } = loadSpecText(workflow, 'spec.yaml');
    expect(warnings).toEqual([]);
    expect(spec.pattern.type).toBe('workflow');
    expect(taskOrder(spec)).toEqual([['overview'], ['technical', 'review'], ['report']]);
    expect(describePattern(spec)).toBe(`workflow, 4 tasks (1 hitl) in 3 levels: overview → technical, review → report, max_parallel ${defaultMaxParallel} (default)`);
  });

  it('names a task that uses an undefined agent, at its line', () => {
    expect(problems(workflow.replace('agent: b\n        deps: [technical', 'agent: writer\n        deps: [technical'))).toEqual([
      "spec.yaml:26:16: error: task 'report' uses agent 'writer', which is not defined under agents (defined: a, b)",
    ]);
  });

  it('refuses two tasks with one id', () => {
    expect(problems(workflow.replace('id: review', 'id: technical').replace('deps: [technical, review]', 'deps: [technical]'))).toEqual([
      "spec.yaml:20:13: error: task id 'technical' is already used by task 1; give each task its own id (templates read tasks.<id>)",
    ]);
  });

  it('refuses deps naming no task, suggesting the closest id', () => {
    expect(problems(workflow.replace('deps: [technical, review]', 'deps: [technicl, review]'))).toContainEqual(
      "spec.yaml:27:16: error: task 'report' depends on 'technicl', which is not a task id (tasks: overview, technical, review, report) (did you mean 'technical'?); fix the id or remove it from deps",
    );
  });

  it('names a dependency cycle in run order', () => {
    const cyclic = workflow.replace('id: overview\n        agent: a', 'id: overview\n        agent: a\n        deps: [report]');
    expect(problems(cyclic)).toEqual([
      "spec.yaml:19:15: error: tasks depend on each other in a cycle, so none of them can start: overview → technical → report → overview (each waits for the one before it); remove one of these deps",
    ]);
  });

  it('names a task that depends on itself', () => {
    expect(problems(workflow.replace('deps: [overview]\n        input', 'deps: [technical]\n        input'))).toEqual([
      "spec.yaml:18:15: error: task 'technical' depends on itself, so it can never start; remove 'technical' from its deps",
      "spec.yaml:19:26: error: template pattern.config.tasks.1.input: tasks.overview: task 'technical' does not depend on 'overview' (not in its deps, directly or through another task), so 'overview' may not have run when it starts; add 'overview' to the deps of 'technical'",
    ]);
  });

  it('refuses a reference to a task that is not an ancestor, which may not have run', () => {
    // review runs beside technical: strands-cli's layers would have run it, acode's scheduler may not have.
    expect(problems(workflow.replace('context_display: "{{ tasks.overview.response }}"', 'context_display: "{{ tasks.technical.response }}"'))).toEqual([
      "spec.yaml:24:36: error: template pattern.config.tasks.2.context_display: tasks.technical: task 'review' does not depend on 'technical' (not in its deps, directly or through another task), so 'technical' may not have run when it starts; add 'technical' to the deps of 'review'",
    ]);
  });

  it('accepts a guarded reference to a task that may not have run', () => {
    const guarded = workflow.replace('context_display: "{{ tasks.overview.response }}"', 'context_display: "{% if tasks.technical is defined %}{{ tasks.technical.response }}{% endif %}"');
    expect(problems(guarded)).toEqual([]);
  });

  it('refuses a task id no task has, and steps/last_response, which workflow tasks do not have', () => {
    expect(problems(workflow.replace('"{{ tasks.overview.response }}"\n      - id: review', '"{{ tasks.overveiw.response }} {{ steps[0].response }} {{ last_response }}"\n      - id: review'))).toEqual([
      "spec.yaml:19:26: error: template pattern.config.tasks.1.input: tasks.overveiw: there is no task 'overveiw' (did you mean 'overview'?) (task ids: overview, technical, review, report)",
      "spec.yaml:19:50: error: template pattern.config.tasks.1.input: 'steps' is not available here: steps[n] belongs to chain steps and parallel branches; a workflow task reads the output of a task it depends on as tasks.<id>.response",
      "spec.yaml:19:74: error: template pattern.config.tasks.1.input: 'last_response' is not available here: workflow tasks have no last_response; a workflow task reads the output of a task it depends on as tasks.<id>.response",
    ]);
  });

  it('offers hitl_response only to tasks downstream of a hitl task', () => {
    expect(problems(workflow.replace('"{{ tasks.overview.response }}"\n      - id: review', '"{{ hitl_response }}"\n      - id: review'))).toEqual([
      "spec.yaml:19:20: error: template pattern.config.tasks.1.input: 'hitl_response' is not available here: hitl_response is the answer of a type: hitl task this task depends on, and task 'technical' depends on none",
    ]);
  });

  it('checks the agent prompt in the scope of every task that uses it', () => {
    expect(problems(workflow.replace('b: { prompt: "You write." }', 'b: { prompt: "You write after {{ tasks.review.response }}." }'))).toEqual([]);
    // a runs overview and technical; the finding is reported once, for the first task that uses it.
    expect(problems(workflow.replace('a: { prompt: "You research." }', 'a: { prompt: "After {{ tasks.review.response }}." }'))).toEqual([
      "spec.yaml:7:32: warning: template agents.a.prompt: tasks.review: task 'overview' does not depend on 'review' (not in its deps, directly or through another task), so 'review' may not have run when it starts; add 'review' to the deps of 'overview' (acode renders agent prompts as templates, strands-cli sends them as written; acode run refuses this)",
    ]);
  });

  it('refuses an id strands-cli would not accept, and a task that is neither agent nor hitl', () => {
    expect(problems(workflow.replace('id: report', 'id: "final report"'))).toContainEqual(
      'spec.yaml:25:13: error: pattern.config.tasks.3.id: an id is letters, digits, dots, underscores, colons and hyphens (strands-cli identifier)',
    );
    expect(problems(workflow.replace('      - id: report\n        agent: b\n', '      - id: report\n'))).toEqual([
      'spec.yaml:25:9: error: pattern.config.tasks.3.agent: Invalid input: expected string, received undefined (a task is an agent task (id, agent, input, deps), an approval (id, type: hitl, prompt, deps) or an agent CLI (id, type: agent_cli, cli, prompt, deps))',
    ]);
  });

  it('warns about what strands-cli allows only on the other task kind', () => {
    expect(problems(workflow.replace('prompt: "Approve?"', 'prompt: "Approve?"\n        input: "x"'))).toEqual([
      "spec.yaml:24:9: warning: 'pattern.config.tasks.2.input' is not supported by acode yet and is ignored",
    ]);
  });

  it('gives artifacts every task, last_response and TRACE, and refuses an unknown task there', () => {
    expect(problems(workflow.replace('{{ last_response }}"', '{{ last_response }} {{ TRACE }} {{ tasks.nope.response }}"'))).toEqual([
      "spec.yaml:33:112: error: template outputs.artifacts.0.from: tasks.nope: there is no task 'nope' (task ids: overview, technical, review, report)",
    ]);
  });
});

describe('parallel specs', () => {
  it('load with their branches, hitl steps and reduce', () => {
    const { spec, warnings } = loadSpecText(parallel.replace('model_id: m }', 'model_id: m, max_parallel: 2 }'), 'spec.yaml');
    expect(warnings).toEqual([]);
    expect(maxParallel(spec)).toBe(2);
    expect(describePattern(spec)).toBe('parallel, 2 branches (web 3 steps, docs 1 step), then reduce (b), max_parallel 2');
  });

  it('needs at least two branches, as strands-cli does', () => {
    const one = parallel.replace(/      - id: docs\n[\s\S]*?(?=    reduce:)/, '').replace("{{ branches['docs'].status }}", '').replace('{{ branches.docs.response }}', '');
    expect(problems(one)).toEqual([
      'spec.yaml:13:7: error: a parallel pattern needs at least 2 branches, as in strands-cli (this one has 1); add a branch, or write a single sequence of steps as a chain',
    ]);
  });

  it('refuses an empty branch, a duplicate branch id and an undefined agent in a branch or the reduce', () => {
    const bad = parallel
      .replace('      - id: docs\n        steps:\n          - agent: a', '      - id: web\n        steps: []\n      - id: docs\n        steps:\n          - agent: c')
      .replace('    reduce:\n      agent: b', '    reduce:\n      agent: d');
    expect(problems(bad)).toEqual([
      "spec.yaml:21:13: error: branch id 'web' is already used by branch 0; give each branch its own id (templates read branches.<id>)",
      "spec.yaml:22:16: error: branch 'web' has no steps; give it at least one (an agent step, or a type: hitl step)",
      "spec.yaml:25:20: error: branch 'docs' step 1 uses agent 'c', which is not defined under agents (defined: a, b) (did you mean 'a'?)",
      "spec.yaml:28:14: error: reduce uses agent 'd', which is not defined under agents (defined: a, b) (did you mean 'a'?)",
    ]);
  });

  it("lets a branch step see only its own branch's earlier steps", () => {
    expect(problems(parallel.replace('"Docs on {{ topic }}"', '"{{ steps[0].response }} {{ branches.web.response }} {{ hitl_response }}"'))).toEqual([
      "spec.yaml:24:30: error: template pattern.config.branches.1.steps.0.input: steps[0] does not exist here: branch 'docs' step 1 is the branch's first step, so no step of it has run before",
      "spec.yaml:24:48: error: template pattern.config.branches.1.steps.0.input: 'branches' is not available here: branches.<id> exists once every branch has finished, for the reduce step and the artifacts; a branch step sees only its own branch (steps[n], last_response)",
      "spec.yaml:24:76: error: template pattern.config.branches.1.steps.0.input: 'hitl_response' is not available here: hitl_response is the answer of an earlier type: hitl step of the same branch, and branch 'docs' step 1 has none before it",
    ]);
  });

  it('gives reduce every branch by id, and refuses an id no branch has or steps/last_response', () => {
    expect(problems(parallel.replace("{{ branches['docs'].status }}", "{{ branches['doc'].status }} {{ last_response }}"))).toEqual([
      "spec.yaml:27:55: error: template pattern.config.reduce.input: branches.doc: there is no branch 'doc' (did you mean 'docs'?) (branch ids: web, docs)",
      "spec.yaml:27:75: error: template pattern.config.reduce.input: 'last_response' is not available here: reduce has no last_response; reduce reads each branch's result as branches.<id>.response",
    ]);
  });

  it('accepts a hitl reduce that shows the branches', () => {
    const hitl = parallel.replace('    reduce:\n      agent: b\n      input:', '    reduce:\n      type: hitl\n      prompt: "Approve?"\n      context_display:');
    expect(problems(hitl)).toEqual([]);
    expect(describePattern(loadSpecText(hitl, 'spec.yaml').spec)).toContain('then reduce (hitl)');
  });
});

describe('spec fields shared by every pattern', () => {
  it('accepts version as strands-cli does: any integer or string', () => {
    for (const version of ['0', '1', '"0"', '1.0.0', '2025']) expect(problems(workflow.replace('version: 0', `version: ${version}`)), version).toEqual([]);
    expect(problems(workflow.replace('version: 0', 'version: 1.5'))[0]).toMatch(/^spec\.yaml:1:10: error: version: /);
  });

  it('takes runtime.max_parallel as a positive integer, defaulting to 5', () => {
    expect(maxParallel(loadSpecText(workflow, 'spec.yaml').spec)).toBe(5);
    expect(problems(workflow.replace('model_id: m }', 'model_id: m, max_parallel: 0 }'))).toEqual(['spec.yaml:3:57: error: runtime.max_parallel: Too small: expected number to be >=1']);
  });

  it('names the pattern types there are for one it does not know', () => {
    expect(problems(workflow.replace('type: workflow', 'type: loop'))).toEqual([
      "spec.yaml:10:9: error: pattern.type: Invalid discriminator value. Expected 'chain' | 'workflow' | 'parallel' | 'routing' | 'evaluator_optimizer' | 'orchestrator_workers' | 'graph'",
    ]);
  });

});

describe('task graph', () => {
  const tasks = [
    { id: 'a' },
    { id: 'b', deps: ['a'] },
    { id: 'c', deps: ['a'] },
    { id: 'd', deps: ['c', 'b'] },
    { id: 'e' },
  ];

  it("orders levels as strands-cli does, spec order within a level", () => {
    expect(taskLevels(tasks)).toEqual({ levels: [['a', 'e'], ['b', 'c'], ['d']], cycle: [] });
  });

  it('finds every ancestor, through other tasks', () => {
    expect([...taskGraph(tasks).ancestors('d')].sort()).toEqual(['a', 'b', 'c']);
    expect([...taskGraph(tasks).ancestors('e')]).toEqual([]);
  });

  it('answers dependsOn and descendants as the ancestor sets do', () => {
    const graph = taskGraph(tasks);
    expect(graph.dependsOn('d', 'a')).toBe(true);
    expect(graph.dependsOn('b', 'c')).toBe(false);
    expect(graph.dependsOn('a', 'a')).toBe(false);
    expect(graph.dependsOn('d', 'nobody')).toBe(false);
    expect([...graph.descendants('a')].sort()).toEqual(['b', 'c', 'd']);
    expect([...graph.descendants('d')]).toEqual([]);
  });

  it('finds a cycle behind the tasks it blocks', () => {
    const cyclic = [{ id: 'x' }, { id: 'y', deps: ['x', 'w'] }, { id: 'z', deps: ['y'] }, { id: 'w', deps: ['z'] }, { id: 'after', deps: ['w'] }];
    expect(taskLevels(cyclic)).toEqual({ levels: [['x']], cycle: ['y', 'z', 'w', 'y'] });
  });

  it('finds a cycle through a task whose id is used twice (the second without deps), as validation reads them', () => {
    // The second t2's deps stood in for the first's: t2 waited for nothing, and the walk fell off it (a stack trace from `acode validate`).
    const doubled = [{ id: 't1', deps: ['t2'] }, { id: 't2', deps: ['t1'] }, { id: 't2' }];
    expect(taskLevels(doubled)).toEqual({ levels: [], cycle: ['t1', 't2', 't1'] });
  });
});

/** A workflow whose tasks form one long line of dependencies. */
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

describe('a deep workflow', () => {
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
