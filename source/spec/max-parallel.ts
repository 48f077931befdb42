import type { WorkflowSpec } from './schema.js';

/**
 * What `runtime.max_parallel` means when a spec leaves it out: strands-cli's JSON Schema and manual
 * give 5 (its executors, when it is unset, put no bound at all; acode keeps the documented one,
 * since an unbounded fan-out meets the provider's rate limit instead).
 */
export const defaultMaxParallel = 5;

/** How many steps of this spec may run at once. */
export function maxParallel(spec: Pick<WorkflowSpec, 'runtime'>): number {
  return spec.runtime.max_parallel ?? defaultMaxParallel;
}

/** "max_parallel 5 (default)": how a summary says the spec's concurrency. */
export function concurrency(spec: Pick<WorkflowSpec, 'runtime'>): string {
  return `max_parallel ${maxParallel(spec)}${spec.runtime.max_parallel === undefined ? ' (default)' : ''}`;
}
