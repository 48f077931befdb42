import type { WorkflowPattern, WorkflowSpec } from './schema.js';

interface TaskNode {
  id: string;
  deps?: readonly string[] | undefined;
}

/** Tasks by level, and the tasks caught in a dependency cycle (empty when there is none). */
export interface TaskLevels {
  /** Level 0 has no deps; a task of level n depends on at least one task of level n − 1. */
  levels: string[][];
  /** One cycle, in run order, its first task repeated at the end: ['a', 'b', 'a'] — a waits for b, b for a. */
  cycle: string[];
}

/**
 * Kahn's algorithm, in strands-cli's order (spec order within a level), so that the last task of the
 * last level is the one whose response strands-cli calls `last_response`. Deps naming no task are
 * skipped here (validation reports them).
 */
export function taskLevels(tasks: readonly TaskNode[]): TaskLevels {
  const ids = new Set(tasks.map((task) => task.id));
  const waiting = new Map<string, number>(tasks.map((task) => [task.id, 0]));
  const dependants = new Map<string, string[]>(tasks.map((task) => [task.id, []]));
  for (const task of tasks) {
    for (const dep of task.deps ?? []) {
      if (!ids.has(dep)) continue;
      dependants.get(dep)!.push(task.id);
      waiting.set(task.id, waiting.get(task.id)! + 1);
    }
  }
  const levels: string[][] = [];
  let ready = [...waiting].filter(([, count]) => count === 0).map(([id]) => id);
  while (ready.length) {
    levels.push(ready);
    const next: string[] = [];
    for (const id of ready) {
      for (const dependant of dependants.get(id)!) {
        const left = waiting.get(dependant)! - 1;
        waiting.set(dependant, left);
        if (left === 0) next.push(dependant);
      }
    }
    ready = next;
  }
  const placed = new Set(levels.flat());
  return { levels, cycle: placed.size === ids.size ? [] : findCycle(tasks, placed, ids) };
}

/** Every unplaced task waits for another unplaced one: following those deps must come back round. */
function findCycle(tasks: readonly TaskNode[], placed: ReadonlySet<string>, ids: ReadonlySet<string>): string[] {
  // Two tasks of one id (validation reports it) count as one, as taskLevels counts them: with the
  // later one's deps alone, a task of the cycle waited for nothing here and the walk fell off it.
  const deps = new Map<string, string[]>();
  for (const task of tasks) deps.set(task.id, [...(deps.get(task.id) ?? []), ...(task.deps ?? []).filter((dep) => ids.has(dep) && !placed.has(dep))]);
  const path: string[] = [];
  const onPath = new Map<string, number>();
  let at = tasks.find((task) => !placed.has(task.id))!.id;
  while (!onPath.has(at)) {
    onPath.set(at, path.length);
    path.push(at);
    at = deps.get(at)![0]!;
  }
  // The path walks from a task to what it waits for; run order is the reverse. Told from the
  // cycle's task that comes first in the spec, so the message reads as the spec does.
  const loop = path.slice(onPath.get(at)).reverse();
  const order = new Map(tasks.map((task, i) => [task.id, i]));
  const start = loop.reduce((best, id, i) => (order.get(id)! < order.get(loop[best]!)! ? i : best), 0);
  const rotated = [...loop.slice(start), ...loop.slice(0, start)];
  return [...rotated, rotated[0]!];
}

/**
 * Who waits for whom, walked on demand: no task's ancestor set is kept, so a workflow of n tasks in
 * one long line costs O(n) to build and O(n) per question, never O(n²) memory. Iterative walks, so
 * depth never meets the stack's limit.
 */
export interface TaskGraph {
  /** The tasks that must finish before `id` starts: its deps, their deps, and so on. */
  ancestors(id: string): Set<string>;
  /** Whether `ancestor` must finish before `id` starts (walks only as far as it must). */
  dependsOn(id: string, ancestor: string): boolean;
  /** The tasks that wait for `id`, directly or through others. */
  descendants(id: string): Set<string>;
}

export function taskGraph(tasks: readonly TaskNode[]): TaskGraph {
  const deps = new Map<string, string[]>(tasks.map((task) => [task.id, []]));
  const dependants = new Map<string, string[]>(tasks.map((task) => [task.id, []]));
  for (const task of tasks) {
    for (const dep of task.deps ?? []) {
      if (!deps.has(dep)) continue;
      deps.get(task.id)!.push(dep);
      dependants.get(dep)!.push(task.id);
    }
  }
  const walk = (edges: Map<string, string[]>, from: string, stopAt?: string): Set<string> => {
    const found = new Set<string>();
    const todo = [...(edges.get(from) ?? [])];
    while (todo.length) {
      const id = todo.pop()!;
      if (found.has(id)) continue;
      found.add(id);
      if (id === stopAt) break;
      todo.push(...edges.get(id)!);
    }
    return found;
  };
  return {
    ancestors: (id) => walk(deps, id),
    dependsOn: (id, ancestor) => deps.has(ancestor) && walk(deps, id, ancestor).has(ancestor),
    descendants: (id) => walk(dependants, id),
  };
}

/** The levels of a validated workflow spec (validation refuses cycles, so every task is placed). */
export function taskOrder(spec: WorkflowSpec | { pattern: WorkflowPattern }): string[][] {
  if (spec.pattern.type !== 'workflow') throw new Error(`taskOrder: pattern '${spec.pattern.type}' has no tasks`);
  const { levels, cycle } = taskLevels(spec.pattern.config.tasks);
  if (cycle.length) throw new Error(`taskOrder: tasks form a cycle (${cycle.join(' → ')}); validation should have refused this spec`);
  return levels;
}
