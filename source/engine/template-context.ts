import type { ChainStep, WorkflowSpec } from '../spec/schema.js';
import type { StepRecord } from './session-progress.js';
import { chainSteps, isApprovalStep } from '../spec/chain-steps.js';

export type Variables = Record<string, string | number | boolean>;

/** Names in `inputs.required` that neither `inputs.values` nor `--var` provide. */
export function missingRequiredInputs(spec: WorkflowSpec, variables: Variables): string[] {
  return Object.keys(spec.inputs?.required ?? {}).filter((name) => !(name in variables));
}

/** Defaults of `inputs.required`/`inputs.optional` declared as `{type, default}` (strands-cli applies them to inputs.values). */
function inputDefaults(spec: WorkflowSpec): Variables {
  const defaults: Variables = {};
  for (const declared of [spec.inputs?.required, spec.inputs?.optional]) {
    for (const [name, type] of Object.entries(declared ?? {})) {
      const value = typeof type === 'object' ? type.default : undefined;
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') defaults[name] = value;
    }
  }
  return defaults;
}

/** Input defaults, then `inputs.values`, then `--var` values, as strands-cli merges them. */
export function mergeVariables(spec: WorkflowSpec, overrides: Variables): Variables {
  return { ...inputDefaults(spec), ...spec.inputs?.values, ...overrides };
}

const stepVars = (step: ChainStep | undefined) => (step && !isApprovalStep(step) ? step.vars : undefined);

/** What a chain step's input sees: variables, `steps[n]`, `last_response`, then the step's own vars. */
export function stepContext(spec: WorkflowSpec, variables: Variables, results: readonly StepRecord[], step: number): Record<string, unknown> {
  return {
    ...variables,
    steps: results,
    last_response: results.at(-1)?.response ?? '',
    ...stepVars(chainSteps(spec)[step]),
  };
}

/** What an artifact's `path` and `from` see (strands-cli: last_response, TRACE, variables, steps). */
export function artifactContext(variables: Variables, results: readonly StepRecord[]): Record<string, unknown> {
  return { last_response: results.at(-1)?.response ?? '', TRACE: '', ...variables, steps: results };
}
