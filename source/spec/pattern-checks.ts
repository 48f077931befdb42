import type { ChainStep, ParallelPattern, WorkflowPattern, WorkflowSpec } from './schema.js';
import { isApprovalStep } from './chain-steps.js';
import { taskLevels } from './task-graph.js';
import { closestName } from './template-scan.js';

type Path = (string | number)[];
/** Reports one finding at the YAML node a path names. */
export type PathReport = (path: Path, message: string) => void;

function suggest(name: string, candidates: Iterable<string>): string {
  const close = closestName(name, candidates);
  return close ? ` (did you mean '${close}'?)` : '';
}

function agentProblem(spec: WorkflowSpec, agent: string, who: string): string | undefined {
  const agents = Object.keys(spec.agents);
  if (spec.agents[agent]) return undefined;
  return `${who} uses agent '${agent}', which is not defined under agents (defined: ${agents.join(', ') || 'none'})${suggest(agent, agents)}`;
}

function checkSteps(spec: WorkflowSpec, steps: readonly ChainStep[], at: Path, who: (i: number) => string, error: PathReport): void {
  for (const [i, step] of steps.entries()) {
    if (isApprovalStep(step)) continue;
    const problem = agentProblem(spec, step.agent, who(i));
    if (problem) error([...at, i, 'agent'], problem);
  }
}

/** The first index of each id used more than once, reported at every later use. */
function checkUniqueIds(ids: readonly string[], at: (i: number) => Path, what: string, error: PathReport): void {
  const first = new Map<string, number>();
  for (const [i, id] of ids.entries()) {
    const earlier = first.get(id);
    if (earlier === undefined) first.set(id, i);
    else error(at(i), `${what} id '${id}' is already used by ${what} ${earlier}; give each ${what} its own id (templates read ${what === 'task' ? 'tasks' : 'branches'}.<id>)`);
  }
}

function checkWorkflow(spec: WorkflowSpec, pattern: WorkflowPattern, error: PathReport, warn: PathReport): void {
  const tasks = pattern.config.tasks;
  const at: Path = ['pattern', 'config', 'tasks'];
  const ids = [...new Set(tasks.map((task) => task.id))];
  checkUniqueIds(tasks.map((task) => task.id), (i) => [...at, i, 'id'], 'task', error);
  // With an id used twice, deps cannot say which task they mean: the graph waits for unique ids.
  const graphable = ids.length === tasks.length;
  for (const [i, task] of tasks.entries()) {
    if (!isApprovalStep(task)) {
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
}

function checkParallel(spec: WorkflowSpec, pattern: ParallelPattern, error: PathReport): void {
  const { branches, reduce } = pattern.config;
  const at: Path = ['pattern', 'config', 'branches'];
  if (branches.length < 2) {
    error(at, `a parallel pattern needs at least 2 branches, as in strands-cli (this one has ${branches.length}); add a branch, or write a single sequence of steps as a chain`);
  }
  checkUniqueIds(branches.map((branch) => branch.id), (i) => [...at, i, 'id'], 'branch', error);
  for (const [i, branch] of branches.entries()) {
    if (branch.steps.length === 0) error([...at, i, 'steps'], `branch '${branch.id}' has no steps; give it at least one (an agent step, or a type: hitl step)`);
    checkSteps(spec, branch.steps, [...at, i, 'steps'], (j) => `branch '${branch.id}' step ${j + 1}`, error);
  }
  if (reduce && !isApprovalStep(reduce)) {
    const problem = agentProblem(spec, reduce.agent, 'reduce');
    if (problem) error(['pattern', 'config', 'reduce', 'agent'], problem);
  }
}

/** What the schema cannot say about a pattern: agents that exist, ids unique, deps that resolve and do not loop. */
export function checkPattern(spec: WorkflowSpec, error: PathReport, warn: PathReport): void {
  const pattern = spec.pattern;
  switch (pattern.type) {
    case 'chain':
      checkSteps(spec, pattern.config.steps, ['pattern', 'config', 'steps'], (i) => `step ${i + 1}`, error);
      return;
    case 'workflow':
      checkWorkflow(spec, pattern, error, warn);
      return;
    case 'parallel':
      checkParallel(spec, pattern, error);
      return;
  }
}
