import type { WorkflowSpec } from './schema.js';
import { isApprovalStep } from './chain-steps.js';
import { closestName, scanTemplate, type TemplateScope } from './template-scan.js';
import { templateFilters } from './template.js';

/** Names `inputs` declares: values, and the required and optional inputs, as strands-cli reads them. */
export function declaredInputs(spec: WorkflowSpec): string[] {
  const inputs = spec.inputs ?? {};
  return [...new Set([...Object.keys(inputs.values ?? {}), ...Object.keys(inputs.required ?? {}), ...Object.keys(inputs.optional ?? {})])];
}

function stepScope(spec: WorkflowSpec, variables: readonly string[], step: number): TemplateScope {
  const config = spec.pattern.config.steps[step];
  const vars = config && !isApprovalStep(config) ? Object.keys(config.vars ?? {}) : [];
  const note = step === 0 ? 'pattern.config.steps[0] is the first step, so no step has run before it' : `pattern.config.steps[${step}] runs after steps[0]${step > 1 ? `…steps[${step - 1}]` : ''} only (a step sees the steps before it)`;
  return { names: new Set([...variables, 'steps', 'last_response', ...vars]), stepsAvailable: step, stepsNote: note, filters: templateFilters() };
}

/**
 * Every context a template field renders in (template-context.ts builds the same ones at run
 * time): a step's input and an approval's texts see that step's context; an agent's prompt sees
 * the context of each step that uses it; artifacts see every step. `variables`: the names the
 * run has (inputs merged with --var), or at validation the names the spec declares.
 */
export function templateScopes(spec: WorkflowSpec, path: readonly PropertyKey[], variables: readonly string[]): TemplateScope[] {
  const steps = spec.pattern.config.steps;
  if (path[0] === 'agents') {
    return steps.flatMap((step, i) => (!isApprovalStep(step) && step.agent === path[1] ? [stepScope(spec, variables, i)] : []));
  }
  if (path[0] === 'pattern') return [stepScope(spec, variables, Number(path[3]))];
  if (path[0] === 'outputs') {
    const note = `artifacts render after the chain's ${steps.length} step${steps.length === 1 ? '' : 's'}: steps[0]${steps.length > 1 ? `…steps[${steps.length - 1}]` : ''}`;
    return [{ names: new Set([...variables, 'steps', 'last_response', 'TRACE']), stepsAvailable: steps.length, stepsNote: note, filters: templateFilters() }];
  }
  return [];
}

/**
 * `--var` names nothing uses — no input declares them, no template reads them — each with the
 * closest declared input (or template name): most often a typo that would otherwise pass silently.
 */
export function unusedVariables(spec: WorkflowSpec, names: readonly string[], templates: Iterable<string>): { name: string; closest?: string }[] {
  const declared = declaredInputs(spec);
  const used = new Set<string>();
  for (const source of templates) for (const name of scanTemplate(source).names) used.add(name);
  return names
    .filter((name) => !declared.includes(name) && !used.has(name))
    .map((name) => ({ name, closest: closestName(name, declared) ?? closestName(name, [...used].filter((n) => !['steps', 'last_response', 'TRACE'].includes(n))) }));
}
