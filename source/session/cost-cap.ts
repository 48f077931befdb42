import { unpricedAgents } from '../engine/prices.js';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import type { WorkflowSpec } from '../spec/schema.js';

/**
 * Why `runtime.budgets.max_cost_usd` cannot be enforced for this spec, or undefined when it can (or
 * is not set): a cap that silently left out the calls of an unpriced model would let them spend
 * without limit, so such a spec is refused, never warned about and run.
 */
export async function unenforceableCap(spec: WorkflowSpec): Promise<string | undefined> {
  if (spec.runtime.budgets?.max_cost_usd === undefined) return undefined;
  const unpriced = await unpricedAgents(spec, spec.context_policy?.compaction?.summarization_model);
  if (!unpriced.length) return undefined;
  const which = unpriced.map((u) => `'${u.agent}' (${u.provider} ${u.model}${u.summaries ? ', its summaries: context_policy.compaction.summarization_model' : ''})`).join(', ');
  return `runtime.budgets.max_cost_usd cannot be enforced: acode has no price for the model of agent${unpriced.length === 1 ? '' : 's'} ${which} — it prices openai and anthropic models its price table knows; use a priced model_id, or cap with runtime.budgets.max_tokens instead`;
}

/** Refuses a run, resume or fork whose spending cap cannot be enforced, before anything is written. */
export async function requireEnforceableCap(spec: WorkflowSpec): Promise<void> {
  const why = await unenforceableCap(spec);
  if (why) throw new AcodeError(`${why}; nothing was run`, ExitCode.usage);
}
