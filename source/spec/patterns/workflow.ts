import { z } from '../../validation/z.js';
import { plural } from '../../human-units.js';
import { isAgentCliStep, isAgentStep, isApprovalStep } from '../chain-steps.js';
import { checkAgentCli, agentProblem, checkCliSessions, checkUniqueIds, suggest } from '../pattern-checks.js';
import { configPath, stepFields, type PatternOf, type PathReport, type SpecKind, type SpecPath } from '../pattern-kind.js';
import { agentCliFields, approvalFields, identifier, listOf } from '../step-schemas.js';
import { taskGraph, taskLevels, taskOrder, type TaskGraph } from '../task-graph.js';
import type { KeyedScope, TemplateScope } from '../template-scan.js';
import { concurrency } from '../max-parallel.js';
import { branchesElsewhere, scope } from '../template-scopes.js';
import type { WorkflowSpec } from '../schema.js';

/** Ids of the tasks that must finish first; checked against the task list after parsing. */
const depsSchema = z.array(z.string()).optional();

const agentTaskSchema = z.strictObject({
  id: identifier,
  agent: z.string(),
  input: z.string().default(''),
  deps: depsSchema,
  /** For people reading the spec and the views; never sent to the model. */
  description: z.string().optional(),
});

const approvalTaskSchema = z.strictObject({ id: identifier, deps: depsSchema, ...approvalFields });

const agentCliTaskSchema = z.strictObject({ id: identifier, deps: depsSchema, description: z.string().optional(), ...agentCliFields });

const workflowTaskSchema = z.union([agentTaskSchema, approvalTaskSchema, agentCliTaskSchema], {
  error: (issue) => (issue.code === 'invalid_union' ? 'a task is an agent task (id, agent, input, deps), an approval (id, type: hitl, prompt, deps) or an agent CLI (id, type: agent_cli, cli, prompt, deps)' : undefined),
});

/** A DAG of tasks: a task starts once every task in its `deps` has finished. */
export const workflowSchema = z.strictObject({
  type: z.literal('workflow'),
  config: z.strictObject({ tasks: listOf(workflowTaskSchema, 'a workflow needs its tasks here: a list of tasks (id, agent, input, deps)').min(1) }),
});

export type WorkflowTask = z.infer<typeof workflowTaskSchema>;
export type AgentTask = z.infer<typeof agentTaskSchema>;
export type ApprovalTask = z.infer<typeof approvalTaskSchema>;
type WorkflowPattern = PatternOf<'workflow'>;

/** Beyond this many tasks the levels are given as counts: a line, not a page. */
const namedTasksLimit = 12;

function checkWorkflow(spec: WorkflowSpec, pattern: WorkflowPattern, error: PathReport, warn: PathReport): void {
  const tasks = pattern.config.tasks;
  const at: SpecPath = [...configPath, 'tasks'];
  const ids = [...new Set(tasks.map((task) => task.id))];
  checkUniqueIds(tasks.map((task) => task.id), (i) => [...at, i, 'id'], 'task', error);
  // With an id used twice, deps cannot say which task they mean: the graph waits for unique ids.
  const graphable = ids.length === tasks.length;
  for (const [i, task] of tasks.entries()) {
    checkAgentCli(task, `task '${task.id}'`, [...at, i], error);
    if (isAgentStep(task)) {
      const problem = agentProblem(spec, task.agent, `task '${task.id}'`);
      if (problem) error([...at, i, 'agent'], problem);
    }
    const seen = new Set<string>();
    for (const [j, dep] of (task.deps ?? []).entries()) {
      if (seen.has(dep)) warn([...at, i, 'deps', j], `task '${task.id}' lists '${dep}' in deps twice; once is enough`);
      else if (!ids.includes(dep)) error([...at, i, 'deps', j], `task '${task.id}' depends on '${dep}', which is not a task id (tasks: ${ids.join(', ')})${suggest(dep, ids)}; fix the id or remove it from deps`);
      seen.add(dep);
    }
  }
  const { cycle } = graphable ? taskLevels(tasks) : { cycle: [] };
  if (cycle.length) {
    const where = tasks.findIndex((task) => task.id === cycle[1]);
    const message = cycle.length === 2
      ? `task '${cycle[0]}' depends on itself, so it can never start; remove '${cycle[0]}' from its deps`
      : `tasks depend on each other in a cycle, so none of them can start: ${cycle.join(' → ')} (each waits for the one before it); remove one of these deps`;
    error([...at, where, 'deps'], message);
  }
  if (graphable && !cycle.length) {
    const graph = taskGraph(tasks);
    const cliTasks = tasks.flatMap((task, i) => (isAgentCliStep(task) ? [{ id: task.id, cli: task.cli, session: task.session, who: `task '${task.id}'`, at: [...at, i] }] : []));
    checkCliSessions(cliTasks, (a, b) => !graph.dependsOn(cliTasks[a]!.id, cliTasks[b]!.id) && !graph.dependsOn(cliTasks[b]!.id, cliTasks[a]!.id), error);
  }
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

/**
 * - workflow task (input, or a hitl task's prompt/context_display): variables,
 *   `tasks.<id>.response`/`.status` of the tasks it depends on, directly or through others (strands-cli
 *   shows every finished task; acode runs a task as soon as its deps finish, so only those are sure
 *   to have run), and `hitl_response` — the answer of its latest hitl ancestor — when it has one.
 * - artifacts: every task; last_response is the last task of the last level.
 */
export const workflowKind: SpecKind<WorkflowPattern> = {
  names: ['tasks', 'hitl_response', 'last_response', 'TRACE'],
  check: checkWorkflow,
  *templateFields(pattern) {
    for (const [i, task] of pattern.config.tasks.entries()) yield* stepFields(task, [...configPath, 'tasks', i]);
  },
  fieldScopes: (_spec, pattern, path, variables) => [taskScope(pattern, variables, Number(path[3]))],
  agentScopes: (_spec, pattern, agent, variables) => pattern.config.tasks.flatMap((task, i) => (isAgentStep(task) && task.agent === agent ? [taskScope(pattern, variables, i)] : [])),
  artifactScope(_spec, pattern, variables) {
    const ids = new Set(pattern.config.tasks.map((t) => t.id));
    const reads = 'workflow artifacts read tasks.<id>.response (last_response is the last task\'s)';
    return scope([...variables, 'last_response', 'TRACE', 'tasks'], {
      keyed: new Map([['tasks', { noun: 'task', known: ids, available: ids, unavailable: () => '' }]]),
      elsewhere: new Map([['steps', `steps[n] belongs to chain steps and parallel branches; ${reads}`], ['branches', `${branchesElsewhere}; ${reads}`]]),
    });
  },
  describe(spec, pattern) {
    const levels = taskOrder({ pattern });
    const tasks = pattern.config.tasks.length;
    const order = tasks <= namedTasksLimit ? levels.map((level) => level.join(', ')).join(' → ') : levels.map((level) => level.length).join(' → ');
    const approvals = pattern.config.tasks.filter((task) => isApprovalStep(task)).length;
    return `workflow, ${plural(tasks, 'task')}${approvals ? ` (${approvals} hitl)` : ''} in ${plural(levels.length, 'level')}: ${order}, ${concurrency(spec)}`;
  },
};
