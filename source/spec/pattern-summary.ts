import type { WorkflowSpec } from './schema.js';
import { specKindOf } from './pattern-kinds.js';

/**
 * The shape of a validated spec in one phrase, for `acode validate`: "chain, 3 steps";
 * "workflow, 4 tasks in 3 levels: a → b, c → d, max_parallel 2"; "parallel, 2 branches (…) then reduce …".
 */
export function describePattern(spec: WorkflowSpec): string {
  return specKindOf(spec.pattern).describe(spec, spec.pattern);
}
