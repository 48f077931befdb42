import { printable } from '../printable-text.js';
import { redact } from '../secrets/redactor.js';
import type { ModelEndpoint } from './create-provider.js';
import { errorDetails } from './failure-classifier.js';
import { networkCauseText, networkErrorCode } from './network-failure.js';

/** How long the check waits for the server: a resume should not hang on a host that does not answer. */
export const modelCheckTimeoutMs = 3000;

/** What the provider said about one model. */
export type ModelAvailability =
  | { kind: 'offered' }
  /** The server listed its models and this one is not among them; `offered` is a few of those it has, `more` says it has others. */
  | { kind: 'missing'; offered: string[]; more: boolean }
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

/** `unchecked`: the server answered, but not with something to read (a redirect, an answer far too long). */
type Fetched = { ok: true; status: number; body: string } | { ok: false; detail: string } | { ok: 'unchecked'; detail: string };

/** What a redirect answer says, its target redacted and made printable. */
export function redirectDetail(status: number, location: string | null): string {
  return printable(redact(`HTTP ${status}, a redirect to ${location ?? '(no Location)'}; acode does not follow redirects with your key`)).slice(0, 240);
}

/** A model list this long is no model list (OpenRouter's, among the longest, is ~1 MB). */
const maxListBytes = 16 * 1024 * 1024;

/**
 * The body as text, or undefined past maxListBytes (read no further): an endless or huge answer
 * (a gzip bomb, fetch inflates it) drove `resume --dry-run` past a gigabyte of memory.
 */
async function boundedText(response: Response): Promise<string | undefined> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    bytes += value.byteLength;
    if (bytes > maxListBytes) {
      await reader.cancel();
      return undefined;
    }
    text += decoder.decode(value, { stream: true });
  }
}

/**
 * Redirects are not followed: fetch would carry a custom header such as x-api-key to whatever host
 * the redirect names (it drops only Authorization, and only across origins).
 */
async function get(url: string, headers: Record<string, string>, timeoutMs: number): Promise<Fetched> {
  try {
    const response = await fetch(url, { headers, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      return { ok: 'unchecked', detail: redirectDetail(response.status, response.headers.get('location')) };
    }
    const body = await boundedText(response);
    if (body === undefined) return { ok: 'unchecked', detail: `the answer to ${url} ran past ${maxListBytes / 1024 / 1024} MiB: no model list is that long` };
    return { ok: true, status: response.status, body };
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') return { ok: false, detail: `no answer within ${timeoutMs / 1000} s` };
    return { ok: false, detail: networkCauseText(networkErrorCode(error), (error as Error).message) };
  }
}

/** Why an answer is not a usable list: "HTTP 401: Incorrect API key provided". */
function answerDetail(fetched: { status: number; body: string }): string {
  return printable(redact(`HTTP ${fetched.status}: ${errorDetails(fetched.body).message}`)).slice(0, 200);
}

/** Ollama names a model without a tag by its `:latest` one ("llama3.2" is "llama3.2:latest"). */
function sameModel(wanted: string, listed: string): boolean {
  return wanted === listed || `${wanted}:latest` === listed || wanted === `${listed}:latest`;
}

/** OpenAI-compatible servers (OpenAI, Ollama, vLLM, LM Studio, llama.cpp): one `GET {base}/models` answers for every model. */
async function checkOpenAi(endpoint: ModelEndpoint, models: readonly string[], timeoutMs: number): Promise<ModelAvailability[]> {
  const url = `${endpoint.baseUrl.replace(/\/+$/, '')}/models`;
  const fetched = await get(url, endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}, timeoutMs);
  if (fetched.ok === false) return models.map(() => ({ kind: 'unreachable', detail: fetched.detail }));
  if (fetched.ok === 'unchecked') return models.map(() => ({ kind: 'unchecked', detail: fetched.detail }));
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
  // The ids are the server's text: redacted (a proxy may echo the key) and stripped of terminal controls before anyone prints them.
  const shown = known.slice(0, 5).map((id) => printable(redact(id)));
  return models.map((model) => (known.some((id) => sameModel(model, id)) ? { kind: 'offered' } : { kind: 'missing', offered: shown, more: known.length > shown.length }));
}

/** Anthropic: `GET /v1/models/{id}` per model, which also resolves aliases such as claude-sonnet-4-5. */
async function checkAnthropic(endpoint: ModelEndpoint, models: readonly string[], timeoutMs: number): Promise<ModelAvailability[]> {
  const headers = { 'anthropic-version': '2023-06-01', ...(endpoint.apiKey ? { 'x-api-key': endpoint.apiKey } : {}) };
  return Promise.all(
    models.map(async (model): Promise<ModelAvailability> => {
      const fetched = await get(`${endpoint.baseUrl.replace(/\/+$/, '')}/v1/models/${encodeURIComponent(model)}`, headers, timeoutMs);
      if (fetched.ok === false) return { kind: 'unreachable', detail: fetched.detail };
      if (fetched.ok === 'unchecked') return { kind: 'unchecked', detail: fetched.detail };
      if (fetched.status === 200) return { kind: 'offered' };
      if (fetched.status === 404 && errorDetails(fetched.body).code === 'not_found_error') return { kind: 'missing', offered: [], more: false };
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
