import { modelCall, type EngineEventBody, type TokenUsage } from './events.js';
import type { StepId } from './step-id.js';

/** What a price needs of a spec: the provider and model of the run and of each agent. */
export interface PricedSpec {
  runtime: { provider: string; model_id?: string };
  agents: Record<string, { model_id?: string; provider?: string }>;
}

/** Dollars for a model's tokens, when the price table knows the model. */
export interface PriceTable {
  dollars(provider: string, model: string, usage: TokenUsage): number | undefined;
}

/** What a step's tokens cost, from its agent's model (or `model` of its provider); undefined when the model's price is unknown. */
export type StepPricer = (agent: string, usage: TokenUsage, model?: string) => number | undefined;

/**
 * Providers whose models the table prices. A local server (ollama) costs nothing per token and the
 * scripted provider is no model: both show tokens only.
 */
const pricedProviders = new Set(['openai', 'anthropic']);

/**
 * Loads the maintained price table (@pydantic/genai-prices: its data ships in the package, nothing
 * is fetched). Loaded on demand: it is the largest module acode bundles, and most commands never price.
 * The rest of acode prices through this module only (the views through state/step-cost.ts, the
 * spending cap through engine/budgets.ts).
 */
export async function loadPriceTable(): Promise<PriceTable> {
  const { calcPrice } = await import('@pydantic/genai-prices');
  return {
    dollars(provider, model, usage) {
      if (!pricedProviders.has(provider) || !model) return undefined;
      const price = calcPrice({ input_tokens: usage.input, output_tokens: usage.output }, model, { providerId: provider });
      return price ? price.total_price : undefined;
    },
  };
}

/** A pricer for the spec's steps, loading the table only when some agent runs on a priced provider. */
export async function pricerFor(spec: PricedSpec): Promise<StepPricer | undefined> {
  const providers = [spec.runtime.provider, ...Object.values(spec.agents).map((agent) => agent.provider ?? spec.runtime.provider)];
  if (!providers.some((provider) => pricedProviders.has(provider))) return undefined;
  return stepPricer(spec, await loadPriceTable());
}

/** Prices a session's steps by their agents' models (an agent's own model_id, else the run's). */
export function stepPricer(spec: PricedSpec, table: PriceTable): StepPricer {
  return (agent, usage, model) => {
    if (usage.input + usage.output === 0) return 0;
    const own = spec.agents[agent];
    return table.dollars(own?.provider ?? spec.runtime.provider, model ?? own?.model_id ?? spec.runtime.model_id ?? '', usage);
  };
}

/** An agent whose model the price table does not know: a spending cap cannot count what it spends. */
export interface UnpricedAgent {
  agent: string;
  provider: string;
  model: string;
  /** The model is the one that writes the agent's summaries (context_policy.compaction.summarization_model). */
  summaries?: true;
}

/**
 * The agents whose calls `runtime.budgets.max_cost_usd` could not count (a model the table does
 * not price, a local server, the scripted provider): priced by a probe of one token each way.
 */
export async function unpricedAgents(spec: PricedSpec, summaryModel?: string): Promise<UnpricedAgent[]> {
  const price = await pricerFor(spec);
  const probe = { input: 1, output: 1 };
  return Object.entries(spec.agents).flatMap(([agent, own]) => {
    const provider = own.provider ?? spec.runtime.provider;
    const unpriced: UnpricedAgent[] = price?.(agent, probe) === undefined ? [{ agent, provider, model: own.model_id ?? spec.runtime.model_id ?? '(no model_id)' }] : [];
    // Its summaries may run on another model (context_policy.compaction.summarization_model).
    if (summaryModel && price?.(agent, probe, summaryModel) === undefined) unpriced.push({ agent, provider, model: summaryModel, summaries: true });
    return unpriced;
  });
}

/**
 * A model call's event with what the call cost (`cost_usd`), when its model has a price: the log,
 * not the price table of a later run, is what runtime.budgets.max_cost_usd counts. `agentOf` names
 * the agent of a step whose event does not (a saved or compacted conversation).
 */
export function pricedCall(body: EngineEventBody, price: StepPricer | undefined, agentOf: (step: StepId) => string | undefined): EngineEventBody {
  // An agent CLI step says its own cost: never priced again by acode's table.
  if ('cost_usd' in body && body.cost_usd !== undefined) return body;
  const call = price ? modelCall(body) : undefined;
  if (!price || !call || call.usage.input + call.usage.output === 0) return body;
  const agent = body.type === 'step_completed' ? body.agent : agentOf(call.step);
  const dollars = agent === undefined ? undefined : price(agent, call.usage, body.type === 'conversation_reset' ? body.model : undefined);
  return dollars === undefined ? body : ({ ...body, cost_usd: dollars } as EngineEventBody);
}
