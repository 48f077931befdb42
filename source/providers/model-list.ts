import { redact } from '../secrets/redactor.js';
import type { ModelEndpoint } from './create-provider.js';
import { errorDetails } from './failure-classifier.js';
import { networkCauseText, networkErrorCode } from './network-failure.js';

/** How long the check waits for the server: a resume should not hang on a host that does not answer. */
export const modelCheckTimeoutMs = 3000;

/** What the provider said about one model. */
export type ModelAvailability =
  | { kind: 'offered' }
  /** The server listed its models and this one is not among them; `offered` is a few of those it has. */
  | { kind: 'missing'; offered: string[] }
  /** No answer: refused, reset, timed out, unknown host. */
  | { kind: 'unreachable'; detail: string }
  /** An answer that is not a model list (no such endpoint, a refused key, a proxy's page): the check cannot tell. */
  | { kind: 'unchecked'; detail: string };

export interface ModelCheck {
  model: string;
  /** The base URL asked (secrets in it redacted). */
  host: string;
  availability: ModelAvailability;
}

type Fetched = { ok: true; status: number; body: string } | { ok: false; detail: string };

async function get(url: string, headers: Record<string, string>, timeoutMs: number): Promise<Fetched> {
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    return { ok: true, status: response.status, body: await response.text() };
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') return { ok: false, detail: `no answer within ${timeoutMs / 1000} s` };
    return { ok: false, detail: networkCauseText(networkErrorCode(error), (error as Error).message) };
  }
}

/** Why an answer is not a usable list: "HTTP 401: Incorrect API key provided". */
function answerDetail(fetched: { status: number; body: string }): string {
  return redact(`HTTP ${fetched.status}: ${errorDetails(fetched.body).message}`).slice(0, 200);
}

/** Ollama names a model without a tag by its `:latest` one ("llama3.2" is "llama3.2:latest"). */
function sameModel(wanted: string, listed: string): boolean {
  return wanted === listed || `${wanted}:latest` === listed || wanted === `${listed}:latest`;
}

/** OpenAI-compatible servers (OpenAI, Ollama, vLLM, LM Studio, llama.cpp): one `GET {base}/models` answers for every model. */
async function checkOpenAi(endpoint: ModelEndpoint, models: readonly string[], timeoutMs: number): Promise<ModelAvailability[]> {
  const url = `${endpoint.baseUrl.replace(/\/+$/, '')}/models`;
  const fetched = await get(url, endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}, timeoutMs);
  if (!fetched.ok) return models.map(() => ({ kind: 'unreachable', detail: fetched.detail }));
  let listed: string[] | undefined;
  if (fetched.status === 200) {
    try {
      const data = (JSON.parse(fetched.body) as { data?: unknown }).data;
      if (Array.isArray(data)) listed = data.flatMap((entry) => (typeof (entry as { id?: unknown }).id === 'string' ? [(entry as { id: string }).id] : []));
    } catch {
      // not JSON: unchecked below
    }
  }
  if (!listed) {
    const detail = fetched.status === 200 ? 'the answer is not a model list' : answerDetail(fetched);
    return models.map(() => ({ kind: 'unchecked', detail }));
  }
  const known = listed;
  return models.map((model) => (known.some((id) => sameModel(model, id)) ? { kind: 'offered' } : { kind: 'missing', offered: known.slice(0, 5) }));
}

/** Anthropic: `GET /v1/models/{id}` per model, which also resolves aliases such as claude-sonnet-4-5. */
async function checkAnthropic(endpoint: ModelEndpoint, models: readonly string[], timeoutMs: number): Promise<ModelAvailability[]> {
  const headers = { 'anthropic-version': '2023-06-01', ...(endpoint.apiKey ? { 'x-api-key': endpoint.apiKey } : {}) };
  return Promise.all(
    models.map(async (model): Promise<ModelAvailability> => {
      const fetched = await get(`${endpoint.baseUrl.replace(/\/+$/, '')}/v1/models/${encodeURIComponent(model)}`, headers, timeoutMs);
      if (!fetched.ok) return { kind: 'unreachable', detail: fetched.detail };
      if (fetched.status === 200) return { kind: 'offered' };
      if (fetched.status === 404 && errorDetails(fetched.body).code === 'not_found_error') return { kind: 'missing', offered: [] };
      return { kind: 'unchecked', detail: answerDetail(fetched) };
    }),
  );
}

/**
 * Asks the provider whether it offers each model (before a resume spends anything on them). Reads
 * only; the key goes in the request headers and nowhere else.
 */
export async function checkModels(endpoint: ModelEndpoint, models: readonly string[], timeoutMs: number = modelCheckTimeoutMs): Promise<ModelCheck[]> {
  if (models.length === 0) return [];
  const results = endpoint.api === 'openai' ? await checkOpenAi(endpoint, models, timeoutMs) : await checkAnthropic(endpoint, models, timeoutMs);
  const host = redact(endpoint.baseUrl);
  return models.map((model, i) => ({ model, host, availability: results[i]! }));
}
