import type { WorkflowSpec } from './schema.js';
import { isApprovalStep } from './chain-steps.js';
import { maxParallel } from './max-parallel.js';
import { taskOrder } from './task-graph.js';
import { plural } from '../human-units.js';


/** Beyond this many tasks the levels are given as counts: a line, not a page. */
const namedTasksLimit = 12;

function concurrency(spec: WorkflowSpec): string {
  return `max_parallel ${maxParallel(spec)}${spec.runtime.max_parallel === undefined ? ' (default)' : ''}`;
}

/**
 * The shape of a validated spec in one phrase, for `acode validate`: "chain, 3 steps";
 * "workflow, 4 tasks in 3 levels: a → b, c → d, max_parallel 2"; "parallel, 2 branches (…) then reduce …".
 */
export function describePattern(spec: WorkflowSpec): string {
  const pattern = spec.pattern;
  switch (pattern.type) {
    case 'chain':
      return `chain, ${plural(pattern.config.steps.length, 'step')}`;
    case 'workflow': {
      const levels = taskOrder(spec);
      const tasks = pattern.config.tasks.length;
      const order = tasks <= namedTasksLimit ? levels.map((level) => level.join(', ')).join(' → ') : levels.map((level) => level.length).join(' → ');
      const approvals = pattern.config.tasks.filter((task) => isApprovalStep(task)).length;
      return `workflow, ${plural(tasks, 'task')}${approvals ? ` (${approvals} hitl)` : ''} in ${plural(levels.length, 'level')}: ${order}, ${concurrency(spec)}`;
    }
    case 'parallel': {
      const { branches, reduce } = pattern.config;
      const list = branches.map((branch) => `${branch.id} ${plural(branch.steps.length, 'step')}`).join(', ');
      const then = reduce ? `, then reduce (${isApprovalStep(reduce) ? 'hitl' : reduce.agent})` : ', no reduce';
      return `parallel, ${plural(branches.length, 'branch', 'branches')} (${list})${then}, ${concurrency(spec)}`;
    }
  }
}
