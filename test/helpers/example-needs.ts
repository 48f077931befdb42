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
  const vars = [...new Set([...required, ...[...read].filter((name) => !declared.includes(name) && !runtimeNames().includes(name))])].sort();
  const pattern = spec.pattern;
  // Patterns that decide their steps while they run have no count before they do: undefined.
  const steps = pattern.type === 'workflow' ? pattern.config.tasks : pattern.type === 'parallel' ? [...pattern.config.branches.flatMap((b) => b.steps), ...(pattern.config.reduce ? [pattern.config.reduce] : [])] : pattern.type === 'chain' ? pattern.config.steps : undefined;
  const tools = [...(spec.tools?.python ?? []).map((t) => (typeof t === 'string' ? t : t.callable)), ...Object.values(spec.agents).flatMap((a) => a.tools ?? [])];
  const providers = [...new Set([spec.runtime.provider, ...Object.values(spec.agents).flatMap((a) => (a.provider ? [a.provider] : []))])];
  return { vars, steps: steps?.length, approvals: steps ? steps.filter((s) => isApprovalStep(s)).length : approvalsIn(pattern.config), tools: [...new Set(tools)], providers };
}

/** Approval steps anywhere in a pattern's config (review gates, hitl nodes and route steps). */
function approvalsIn(node: unknown): number {
  if (Array.isArray(node)) return node.reduce((n: number, item) => n + approvalsIn(item), 0);
  if (node === null || typeof node !== 'object') return 0;
  const record = node as Record<string, unknown>;
  return (record.type === 'hitl' || record.type === 'approval' ? 1 : 0) + Object.values(record).reduce((n: number, value) => n + approvalsIn(value), 0);
}
