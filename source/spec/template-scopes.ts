import type { ChainStep, WorkflowSpec } from './schema.js';
import { isApprovalStep } from './chain-steps.js';
import { specKindOf, specKinds } from './pattern-kinds.js';
import { closestName, scanTemplate, type TemplateScope } from './template-scan.js';
import { templateFilters } from './template.js';

/**
 * The names a template can read, pattern by pattern — the contract the engine's render contexts
 * keep (strands-cli's, unless noted):
 * - chain step: variables, `steps[n]` of the steps before it, `last_response`, its `vars`.
 * - workflow task (input, or a hitl task's prompt/context_display): variables,
 *   `tasks.<id>.response`/`.status` of the tasks it depends on, directly or through others (strands-cli
 *   shows every finished task; acode runs a task as soon as its deps finish, so only those are sure
 *   to have run), and `hitl_response` — the answer of its latest hitl ancestor — when it has one.
 * - parallel branch step: like a chain step within its own branch — `steps[n]` before it,
 *   `last_response`, its `vars` — plus `hitl_response` after a hitl step of the branch.
 * - reduce: variables, `branches.<id>.response`/`.status` of every branch, its `vars`.
 * - artifacts: variables, `last_response`, `TRACE`, and `steps` (chain), `tasks` (workflow: every
 *   task; last_response is the last task of the last level) or `branches` (parallel: last_response is
 *   the reduce's response).
 */

/** Names `inputs` declares: values, and the required and optional inputs, as strands-cli reads them. */
export function declaredInputs(spec: WorkflowSpec): string[] {
  const inputs = spec.inputs ?? {};
  return [...new Set([...Object.keys(inputs.values ?? {}), ...Object.keys(inputs.required ?? {}), ...Object.keys(inputs.optional ?? {})])];
}

/** Names the engine provides at run time in one pattern or another (never a `--var`'s to claim unused). */
export function runtimeNames(): readonly string[] {
  // Asked when needed, not when this module loads: the pattern modules import this one.
  return [...new Set(Object.values(specKinds).flatMap((kind) => kind.names))];
}

export const tasksElsewhere = 'tasks.<id> belongs to the workflow pattern';
export const branchesElsewhere = 'branches.<id> belongs to the parallel pattern (its reduce step and artifacts read it)';

export const stepVars = (step: ChainStep | undefined) => (step && !isApprovalStep(step) ? Object.keys(step.vars ?? {}) : []);

export function scope(names: Iterable<string>, extra: Partial<TemplateScope> = {}): TemplateScope {
  return { names: new Set(names), stepsAvailable: 0, stepsNote: '', filters: templateFilters(), ...extra };
}

export function chainStepScope(steps: readonly ChainStep[], variables: readonly string[], step: number): TemplateScope {
  const note = step === 0 ? 'pattern.config.steps[0] is the first step, so no step has run before it' : `pattern.config.steps[${step}] runs after steps[0]${step > 1 ? `…steps[${step - 1}]` : ''} only (a step sees the steps before it)`;
  return scope([...variables, 'steps', 'last_response', ...stepVars(steps[step])], {
    stepsAvailable: step,
    stepsNote: note,
    elsewhere: new Map([['tasks', `${tasksElsewhere}; a chain step reads earlier steps as steps[n].response`], ['branches', branchesElsewhere]]),
  });
}

/**
 * Every context a template field renders in (template-context.ts builds the same ones at run
 * time): a step's input and an approval's texts see that step's context; an agent's prompt sees
 * the context of each step that uses it; artifacts see what the finished run leaves. `variables`:
 * the names the run has (inputs merged with --var), or at validation the names the spec declares.
 */
export function templateScopes(spec: WorkflowSpec, path: readonly PropertyKey[], variables: readonly string[]): TemplateScope[] {
  const kind = specKindOf(spec.pattern);
  if (path[0] === 'agents') return kind.agentScopes(spec, spec.pattern, String(path[1]), variables);
  if (path[0] === 'pattern') return kind.fieldScopes(spec, spec.pattern, path, variables);
  if (path[0] === 'outputs') return [kind.artifactScope(spec, spec.pattern, variables)];
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
    .map((name) => ({ name, closest: closestName(name, declared) ?? closestName(name, [...used].filter((n) => !runtimeNames().includes(n))) }));
}
