import type { WorkflowSpec } from '../spec/schema.js';
import type { AutoResumePolicy } from './resume-strategy.js';

export type FailurePolicy = NonNullable<WorkflowSpec['runtime']['failure_policy']>;

/** How long to wait before the automatic retry `attempt` (1-based), by a spec's failure_policy. */
export type RetryDelay = (attempt: number, random: () => number) => number;

/**
 * strands-cli's waits (tenacity's wait_exponential, multiplier 1): 1 s, 2 s, 4 s … held within
 * wait_min..wait_max; constant waits wait_min every time; jittered draws each wait between half
 * of the exponential one and all of it, so that runs failing together do not retry together.
 */
export function failurePolicyDelay(policy: FailurePolicy): RetryDelay {
  const minMs = policy.wait_min * 1000;
  const maxMs = policy.wait_max * 1000;
  const exponential = (attempt: number) => Math.min(maxMs, Math.max(minMs, 1000 * 2 ** Math.max(0, attempt - 1)));
  switch (policy.backoff) {
    case 'constant':
      return () => minMs;
    case 'exponential':
      return (attempt) => exponential(attempt);
    case 'jittered':
      return (attempt, random) => Math.max(minMs, Math.round(exponential(attempt) * (0.5 + random() / 2)));
  }
}

/**
 * The auto-resume policy a session runs with: its spec's `runtime.failure_policy`, when it has one,
 * sets how many automatic retries a step gets in a row and the waits between them — in the one
 * retry loop acode has (the executor's continuation), so no second loop retries inside it. Whether
 * automatic resume is on at all (`--no-auto-resume`, resume.auto_resume) and what an unknown
 * failure leads to (resume.on_unknown) stay the person's settings.
 */
export function withFailurePolicy(policy: AutoResumePolicy, failure: FailurePolicy | undefined): AutoResumePolicy {
  if (!failure) return policy;
  return { ...policy, maxAttempts: failure.retries, delay: failurePolicyDelay(failure), capName: 'runtime.failure_policy.retries' };
}
