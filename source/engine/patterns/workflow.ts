import type { WorkflowPattern } from '../../spec/schema.js';
import { plural } from '../../human-units.js';
import { isObject, isStepShape, isString, type EngineKind } from '../pattern-kind.js';
import { isAgentCliStep, isApprovalStep } from '../../spec/chain-steps.js';
import { taskGraph, taskLevels } from '../../spec/task-graph.js';
import type { Pattern, PatternStep, ShapeNode } from '../pattern.js';
import type { SessionProgress } from '../session-progress.js';
import type { Variables } from '../template-context.js';

type Task = WorkflowPattern['config']['tasks'][number];

function taskWork(task: Task): PatternStep {
  if (isApprovalStep(task)) return { id: task.id, label: 'approval', work: { kind: 'approval', approval: task } };
  if (isAgentCliStep(task)) return { id: task.id, label: task.cli, work: { kind: 'agent_cli', cli: task } };
  return { id: task.id, label: task.agent, work: { kind: 'agent', agent: task.agent, input: task.input } };
}

/**
 * A DAG of tasks (strands-cli's `workflow`): a task is ready once every task in its `deps` has
 * completed, so independent tasks run at once (up to `runtime.max_parallel`). A task's id is its
 * step id. Templates see `tasks.<id>.response` / `.status` of finished tasks and `hitl_response`, the
 * answer of the latest approval task among its ancestors. A failed task stops only what depends on
 * it from starting; everything finished is kept, and a resume runs what is unfinished.
 */
export function workflowPattern(config: WorkflowPattern['config']): Pattern {
  const tasks = config.tasks;
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const { levels } = taskLevels(tasks);
  const levelOf = new Map(levels.flatMap((ids, level) => ids.map((id) => [id, level] as const)));
  // Views list tasks level by level, in spec order within a level (strands-cli's order).
  const ordered = levels.flat().map((id) => byId.get(id)!);
  const shape: ShapeNode[] = ordered.map((task) => ({
    id: task.id, label: taskWork(task).label, title: `task ${task.id}`, group: `level ${levelOf.get(task.id)! + 1}`,
    after: [...(task.deps ?? [])].filter((dep) => byId.has(dep)), approval: isApprovalStep(task),
  }));
  const graph = taskGraph(tasks);
  const lastTask = levels.at(-1)?.at(-1);
  const finishedTasks = (progress: SessionProgress, only?: ReadonlySet<string>) =>
    Object.fromEntries(ordered.filter((task) => progress.completed[task.id] && (!only || only.has(task.id))).map((task) => [task.id, { response: progress.completed[task.id]!.response, status: 'success' }]));
  return {
    type: 'workflow',
    shape: () => shape,
    step: (id) => {
      const task = byId.get(id);
      return task ? taskWork(task) : undefined;
    },
    ready: (progress) => ordered.filter((task) => !progress.completed[task.id] && (task.deps ?? []).every((dep) => progress.completed[dep])).map(taskWork),
    finished: (progress) => ordered.every((task) => progress.completed[task.id]),
    context(id, progress, variables) {
      const before = graph.ancestors(id);
      // The latest approval among the ancestors, in run order.
      const hitl = ordered.filter((task) => before.has(task.id) && isApprovalStep(task) && progress.completed[task.id]).at(-1);
      return { ...variables, tasks: finishedTasks(progress, before), ...(hitl ? { hitl_response: progress.completed[hitl.id]!.response } : {}) };
    },
    artifactContext(progress, variables: Variables) {
      return { ...variables, TRACE: '', tasks: finishedTasks(progress), last_response: lastTask ? (progress.completed[lastTask]?.response ?? '') : '' };
    },
    reusableBefore(from, progress) {
      if (!byId.has(from)) return undefined;
      // Everything finished that `from` does not lead to: its dependants read what it answers.
      const downstream = graph.descendants(from);
      return ordered.filter((task) => task.id !== from && !downstream.has(task.id) && progress.completed[task.id]).map((task) => task.id);
    },
    firstUnfinished: (progress) => ordered.find((task) => !progress.completed[task.id])?.id,
  };
}


const isTask = (task: unknown) => isStepShape(task) && isObject(task) && isString(task.id) && (task.deps === undefined || (Array.isArray(task.deps) && task.deps.every(isString)));

export const workflowKind: EngineKind<WorkflowPattern> = {
  plugin: workflowPattern,
  hasShape: (config) => Array.isArray(config.tasks) && config.tasks.every(isTask),
  words: {
    lane: ['level', 'levels'],
    laneLabel: (group) => group,
    stepWord: 'task',
    shapeWords: (steps) => `${plural(steps.length, 'task')} in ${plural(new Set(steps.map((step) => step.group).filter((group) => group !== null)).size, 'level')}`,
  },
  numbered: false,
};
