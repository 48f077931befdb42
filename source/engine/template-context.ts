import type { WorkflowSpec } from '../spec/schema.js';

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

/** What artifacts see before any step has run (paths checked before the first step): the variables. */
export function preflightContext(variables: Variables): Record<string, unknown> {
  return { last_response: '', TRACE: '', ...variables, steps: [] };
}
