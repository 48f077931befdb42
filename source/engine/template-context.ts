import type { ChainStep, WorkflowSpec } from '../spec/schema.js';
import type { StepRecord } from './session-progress.js';
import { isApprovalStep } from '../spec/chain-steps.js';

export type Variables = Record<string, string | number | boolean>;

/** Names in `inputs.required` that neither `inputs.values` nor `--var` provide. */
export function missingRequiredInputs(spec: WorkflowSpec, variables: Variables): string[] {
  return Object.keys(spec.inputs?.required ?? {}).filter((name) => !(name in variables));
}

/** `inputs.values` defaults overridden by `--var` values, as strands-cli merges them. */
export function mergeVariables(spec: WorkflowSpec, overrides: Variables): Variables {
  return { ...spec.inputs?.values, ...overrides };
}

const stepVars = (step: ChainStep | undefined) => (step && !isApprovalStep(step) ? step.vars : undefined);

/** What a chain step's input sees: variables, `steps[n]`, `last_response`, then the step's own vars. */
export function stepContext(spec: WorkflowSpec, variables: Variables, results: readonly StepRecord[], step: number): Record<string, unknown> {
  return {
    ...variables,
    steps: results,
    last_response: results.at(-1)?.response ?? '',
    ...stepVars(spec.pattern.config.steps[step]),
  };
}

/** What an artifact's `path` and `from` see (strands-cli: last_response, TRACE, variables, steps). */
export function artifactContext(variables: Variables, results: readonly StepRecord[]): Record<string, unknown> {
  return { last_response: results.at(-1)?.response ?? '', TRACE: '', ...variables, steps: results };
}
