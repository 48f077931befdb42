import { isApprovalStep } from '../../source/spec/chain-steps.js';
import { templateFields } from '../../source/spec/load-spec.js';
import type { WorkflowSpec } from '../../source/spec/schema.js';
import { scanTemplate } from '../../source/spec/template-scan.js';
import { declaredInputs, runtimeNames } from '../../source/spec/template-scopes.js';

/** What a run of an example needs beyond the spec: `--var`s, approvals, tools, providers. */
export function exampleNeeds(spec: WorkflowSpec) {
  const read = new Set([...templateFields(spec)].flatMap(([, source]) => [...scanTemplate(source).names]));
  const declared = declaredInputs(spec);
  const required = Object.entries(spec.inputs?.required ?? {}).filter(([, type]) => typeof type !== 'object' || type.default === undefined).map(([name]) => name);
  const vars = [...new Set([...required, ...[...read].filter((name) => !declared.includes(name) && !runtimeNames.includes(name))])].sort();
  const pattern = spec.pattern;
  const steps = pattern.type === 'workflow' ? pattern.config.tasks : pattern.type === 'parallel' ? [...pattern.config.branches.flatMap((b) => b.steps), ...(pattern.config.reduce ? [pattern.config.reduce] : [])] : pattern.config.steps;
  const tools = [...(spec.tools?.python ?? []).map((t) => (typeof t === 'string' ? t : t.callable)), ...Object.values(spec.agents).flatMap((a) => a.tools ?? [])];
  const providers = [...new Set([spec.runtime.provider, ...Object.values(spec.agents).flatMap((a) => (a.provider ? [a.provider] : []))])];
  return { vars, steps: steps.length, approvals: steps.filter((s) => isApprovalStep(s)).length, tools: [...new Set(tools)], providers };
}
