import type { ChainStep, ParallelPattern, WorkflowPattern, WorkflowSpec } from './schema.js';
import { isApprovalStep } from './chain-steps.js';
import { taskGraph, taskLevels, type TaskGraph } from './task-graph.js';
import { closestName, scanTemplate, type KeyedScope, type TemplateScope } from './template-scan.js';
import { templateFilters } from './template.js';

/**
 * The names a template can read, pattern by pattern — the contract the engine's render contexts
 * keep (strands-cli's, unless noted):
 * - chain step: variables, `steps[n]` of the steps before it, `last_response`, its `vars`.
 * - workflow task (input, or a hitl task's prompt/context_display): variables,
 *   `tasks.<id>.response`/`.status` of the tasks it depends on, directly or through others (strands-cli
 *   shows every finished task; acode runs a task as soon as its deps finish, so only those are sure
 *   to have run), and `hitl_response` — the answer of its latest hitl ancestor — when it has one.
 * - parallel branch step: like a chain step within its own branch — `steps[n]` before it,
 *   `last_response`, its `vars` — plus `hitl_response` after a hitl step of the branch.
 * - reduce: variables, `branches.<id>.response`/`.status` of every branch, its `vars`.
 * - artifacts: variables, `last_response`, `TRACE`, and `steps` (chain), `tasks` (workflow: every
 *   task; last_response is the last task of the last level) or `branches` (parallel: last_response is
 *   the reduce's response).
 */

/** Names `inputs` declares: values, and the required and optional inputs, as strands-cli reads them. */
export function declaredInputs(spec: WorkflowSpec): string[] {
  const inputs = spec.inputs ?? {};
  return [...new Set([...Object.keys(inputs.values ?? {}), ...Object.keys(inputs.required ?? {}), ...Object.keys(inputs.optional ?? {})])];
}

/** Names the engine provides at run time in one pattern or another (never a `--var`'s to claim unused). */
export const runtimeNames = ['steps', 'last_response', 'TRACE', 'tasks', 'branches', 'hitl_response'];

const tasksElsewhere = 'tasks.<id> belongs to the workflow pattern';
const branchesElsewhere = 'branches.<id> belongs to the parallel pattern (its reduce step and artifacts read it)';

const stepVars = (step: ChainStep | undefined) => (step && !isApprovalStep(step) ? Object.keys(step.vars ?? {}) : []);

function scope(names: Iterable<string>, extra: Partial<TemplateScope> = {}): TemplateScope {
  return { names: new Set(names), stepsAvailable: 0, stepsNote: '', filters: templateFilters(), ...extra };
}

function chainStepScope(steps: readonly ChainStep[], variables: readonly string[], step: number): TemplateScope {
  const note = step === 0 ? 'pattern.config.steps[0] is the first step, so no step has run before it' : `pattern.config.steps[${step}] runs after steps[0]${step > 1 ? `…steps[${step - 1}]` : ''} only (a step sees the steps before it)`;
  return scope([...variables, 'steps', 'last_response', ...stepVars(steps[step])], {
    stepsAvailable: step,
    stepsNote: note,
    elsewhere: new Map([['tasks', `${tasksElsewhere}; a chain step reads earlier steps as steps[n].response`], ['branches', branchesElsewhere]]),
  });
}

/** What every task scope of one workflow shares, built once per pattern: O(tasks + deps). */
interface WorkflowFacts {
  ids: ReadonlySet<string>;
  graph: TaskGraph;
  /** Tasks with a hitl task among their ancestors. */
  afterHitl: ReadonlySet<string>;
}

const workflowFacts = new WeakMap<WorkflowPattern, WorkflowFacts>();

function factsOf(pattern: WorkflowPattern): WorkflowFacts {
  const known = workflowFacts.get(pattern);
  if (known) return known;
  const tasks = pattern.config.tasks;
  const graph = taskGraph(tasks);
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const afterHitl = new Set<string>();
  // In run order, so each dep is settled before the tasks that wait for it.
  const placed = taskLevels(tasks).levels.flat();
  for (const id of placed) {
    const deps = byId.get(id)!.deps ?? [];
    if (deps.some((dep) => afterHitl.has(dep) || (byId.has(dep) && isApprovalStep(byId.get(dep)!)))) afterHitl.add(id);
  }
  // Tasks in or behind a cycle have no run order (validation reports the cycle): walk each one.
  if (placed.length < tasks.length) {
    const inOrder = new Set(placed);
    for (const task of tasks) {
      if (!inOrder.has(task.id) && [...graph.ancestors(task.id)].some((id) => isApprovalStep(byId.get(id)!))) afterHitl.add(task.id);
    }
  }
  const facts = { ids: new Set(tasks.map((t) => t.id)), graph, afterHitl };
  workflowFacts.set(pattern, facts);
  return facts;
}

function taskScope(pattern: WorkflowPattern, variables: readonly string[], index: number): TemplateScope {
  const task = pattern.config.tasks[index]!;
  const { ids, graph, afterHitl } = factsOf(pattern);
  const hitl = afterHitl.has(task.id);
  const keyed: KeyedScope = {
    noun: 'task',
    known: ids,
    // Asked per id a template names, so no task's whole ancestry is ever kept.
    available: { has: (id) => graph.dependsOn(task.id, id) },
    unavailable: (id) => id === task.id
      ? `task '${id}' cannot read its own response`
      : `task '${task.id}' does not depend on '${id}' (not in its deps, directly or through another task), so '${id}' may not have run when it starts; add '${id}' to the deps of '${task.id}'`,
  };
  const reads = 'a workflow task reads the output of a task it depends on as tasks.<id>.response';
  const elsewhere = new Map([
    ['steps', `steps[n] belongs to chain steps and parallel branches; ${reads}`],
    ['last_response', `workflow tasks have no last_response; ${reads}`],
    ['branches', `${branchesElsewhere}; ${reads}`],
    ['hitl_response', `hitl_response is the answer of a type: hitl task this task depends on, and task '${task.id}' depends on none`],
  ]);
  return scope([...variables, 'tasks', ...(hitl ? ['hitl_response'] : [])], { keyed: new Map([['tasks', keyed]]), elsewhere });
}

function branchStepScope(pattern: ParallelPattern, variables: readonly string[], branchIndex: number, step: number): TemplateScope {
  const branch = pattern.config.branches[branchIndex]!;
  const hitl = branch.steps.slice(0, step).some((s) => isApprovalStep(s));
  // 1-based, as the views name it; steps[n] is the template's own (0-based) index.
  const where = `branch '${branch.id}' step ${step + 1}`;
  const note = step === 0 ? `${where} is the branch's first step, so no step of it has run before` : `${where} runs after steps[0]${step > 1 ? `…steps[${step - 1}]` : ''} of its own branch only (a branch step sees the steps before it in its branch)`;
  const elsewhere = new Map([
    ['tasks', `${tasksElsewhere}; a branch step reads its branch's earlier steps as steps[n].response`],
    ['branches', `branches.<id> exists once every branch has finished, for the reduce step and the artifacts; a branch step sees only its own branch (steps[n], last_response)`],
    ['hitl_response', `hitl_response is the answer of an earlier type: hitl step of the same branch, and ${where} has none before it`],
  ]);
  return scope([...variables, 'steps', 'last_response', ...stepVars(branch.steps[step]), ...(hitl ? ['hitl_response'] : [])], { stepsAvailable: step, stepsNote: note, elsewhere });
}

function branchesKeyed(pattern: ParallelPattern): KeyedScope {
  const ids = new Set(pattern.config.branches.map((b) => b.id));
  return { noun: 'branch', known: ids, available: ids, unavailable: () => '' };
}

function reduceScope(pattern: ParallelPattern, variables: readonly string[]): TemplateScope {
  const reads = 'reduce reads each branch\'s result as branches.<id>.response';
  const elsewhere = new Map([
    ['steps', `steps[n] holds a chain's or one branch's steps; ${reads}`],
    ['last_response', `reduce has no last_response; ${reads}`],
    ['tasks', `${tasksElsewhere}; ${reads}`],
    ['hitl_response', `hitl_response is for the steps after a hitl step inside a branch; ${reads}`],
  ]);
  return scope([...variables, 'branches', ...stepVars(pattern.config.reduce)], { keyed: new Map([['branches', branchesKeyed(pattern)]]), elsewhere });
}

function artifactScope(spec: WorkflowSpec, variables: readonly string[]): TemplateScope {
  const pattern = spec.pattern;
  const common = [...variables, 'last_response', 'TRACE'];
  switch (pattern.type) {
    case 'chain': {
      const n = pattern.config.steps.length;
      const note = `artifacts render after the chain's ${n} step${n === 1 ? '' : 's'}: steps[0]${n > 1 ? `…steps[${n - 1}]` : ''}`;
      return scope([...common, 'steps'], { stepsAvailable: n, stepsNote: note, elsewhere: new Map([['tasks', tasksElsewhere], ['branches', branchesElsewhere]]) });
    }
    case 'workflow': {
      const ids = new Set(pattern.config.tasks.map((t) => t.id));
      const reads = 'workflow artifacts read tasks.<id>.response (last_response is the last task\'s)';
      return scope([...common, 'tasks'], {
        keyed: new Map([['tasks', { noun: 'task', known: ids, available: ids, unavailable: () => '' }]]),
        elsewhere: new Map([['steps', `steps[n] belongs to chain steps and parallel branches; ${reads}`], ['branches', `${branchesElsewhere}; ${reads}`]]),
      });
    }
    case 'parallel': {
      const reads = 'parallel artifacts read branches.<id>.response (last_response is the reduce step\'s response, or every branch\'s joined when there is no reduce)';
      return scope([...common, 'branches'], {
        keyed: new Map([['branches', branchesKeyed(pattern)]]),
        elsewhere: new Map([['steps', `steps[n] holds one branch's steps and is gone once the branches finish; ${reads}`], ['tasks', `${tasksElsewhere}; ${reads}`]]),
      });
    }
  }
}

/** The scope of every place that runs `agent`: its prompt renders in each of them. */
function agentScopes(spec: WorkflowSpec, agent: string, variables: readonly string[]): TemplateScope[] {
  const uses = (step: ChainStep | undefined) => step !== undefined && !isApprovalStep(step) && step.agent === agent;
  const pattern = spec.pattern;
  switch (pattern.type) {
    case 'chain':
      return pattern.config.steps.flatMap((step, i) => (uses(step) ? [chainStepScope(pattern.config.steps, variables, i)] : []));
    case 'workflow':
      return pattern.config.tasks.flatMap((task, i) => (!isApprovalStep(task) && task.agent === agent ? [taskScope(pattern, variables, i)] : []));
    case 'parallel':
      return [
        ...pattern.config.branches.flatMap((branch, b) => branch.steps.flatMap((step, i) => (uses(step) ? [branchStepScope(pattern, variables, b, i)] : []))),
        ...(uses(pattern.config.reduce) ? [reduceScope(pattern, variables)] : []),
      ];
  }
}

/** The scope of the pattern field at `path` (a step's, task's, branch step's or reduce's template). */
function patternScope(spec: WorkflowSpec, path: readonly PropertyKey[], variables: readonly string[]): TemplateScope[] {
  const pattern = spec.pattern;
  switch (pattern.type) {
    case 'chain':
      return [chainStepScope(pattern.config.steps, variables, Number(path[3]))];
    case 'workflow':
      return [taskScope(pattern, variables, Number(path[3]))];
    case 'parallel':
      return path[2] === 'reduce' ? [reduceScope(pattern, variables)] : [branchStepScope(pattern, variables, Number(path[3]), Number(path[5]))];
  }
}

/**
 * Every context a template field renders in (template-context.ts builds the same ones at run
 * time): a step's input and an approval's texts see that step's context; an agent's prompt sees
 * the context of each step that uses it; artifacts see what the finished run leaves. `variables`:
 * the names the run has (inputs merged with --var), or at validation the names the spec declares.
 */
export function templateScopes(spec: WorkflowSpec, path: readonly PropertyKey[], variables: readonly string[]): TemplateScope[] {
  if (path[0] === 'agents') return agentScopes(spec, String(path[1]), variables);
  if (path[0] === 'pattern') return patternScope(spec, path, variables);
  if (path[0] === 'outputs') return [artifactScope(spec, variables)];
  return [];
}

/**
 * `--var` names nothing uses — no input declares them, no template reads them — each with the
 * closest declared input (or template name): most often a typo that would otherwise pass silently.
 */
export function unusedVariables(spec: WorkflowSpec, names: readonly string[], templates: Iterable<string>): { name: string; closest?: string }[] {
  const declared = declaredInputs(spec);
  const used = new Set<string>();
  for (const source of templates) for (const name of scanTemplate(source).names) used.add(name);
  return names
    .filter((name) => !declared.includes(name) && !used.has(name))
    .map((name) => ({ name, closest: closestName(name, declared) ?? closestName(name, [...used].filter((n) => !runtimeNames.includes(n))) }));
}
