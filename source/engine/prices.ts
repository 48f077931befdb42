import type { TokenUsage } from './events.js';

/** What a price needs of a spec: the provider and model of the run and of each agent. */
export interface PricedSpec {
  runtime: { provider: string; model_id?: string };
  agents: Record<string, { model_id?: string; provider?: string }>;
}

/** Dollars for a model's tokens, when the price table knows the model. */
export interface PriceTable {
  dollars(provider: string, model: string, usage: TokenUsage): number | undefined;
}

/** What a step's tokens cost, from its agent's model; undefined when the model's price is unknown. */
export type StepPricer = (agent: string, usage: TokenUsage) => number | undefined;

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
  return (agent, usage) => {
    if (usage.input + usage.output === 0) return 0;
    const own = spec.agents[agent];
    return table.dollars(own?.provider ?? spec.runtime.provider, own?.model_id ?? spec.runtime.model_id ?? '', usage);
  };
}

/** An agent whose model the price table does not know: a spending cap cannot count what it spends. */
export interface UnpricedAgent {
  agent: string;
  provider: string;
  model: string;
}

/**
 * The agents whose calls `runtime.budgets.max_cost_usd` could not count (a model the table does
 * not price, a local server, the scripted provider): priced by a probe of one token each way.
 */
export async function unpricedAgents(spec: PricedSpec): Promise<UnpricedAgent[]> {
  const price = await pricerFor(spec);
  return Object.entries(spec.agents).flatMap(([agent, own]) => {
    if (price?.(agent, { input: 1, output: 1 }) !== undefined) return [];
    return [{ agent, provider: own.provider ?? spec.runtime.provider, model: own.model_id ?? spec.runtime.model_id ?? '(no model_id)' }];
  });
}
