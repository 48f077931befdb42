import { ProviderError, StepAbortedError } from '../engine/stop-errors.js';
import { printable } from '../printable-text.js';
import { redact, redactKnown } from '../secrets/redactor.js';
import { classifyHttpFailure, type HttpFailure } from './failure-classifier.js';
import { classifyNetworkFailure } from './network-failure.js';

/** What an HTTP model provider is configured with; keys come from the environment, never from disk. */
export interface HttpModelSettings {
  /** The provider's base URL; each provider appends its own path. */
  baseUrl: string;
  model: string;
  /** Per-agent `model_id` overrides from the spec's agents. */
  agentModels?: Readonly<Record<string, string>>;
  /** Read from the environment when the provider is made; never stored or logged. */
  apiKey?: string;
  temperature?: number;
  maxTokens?: number;
  topP?: number;
  /** false: ask for the answer in one piece (the benchmark's comparison); streamed otherwise. */
  stream?: boolean;
  /** What to check when the server cannot be reached: the setting its URL came from. */
  unreachableHint?: string;
}

export interface JsonPost {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal: AbortSignal;
  provider: HttpFailure['provider'];
  /** Named in failure messages. */
  endpoint: string;
  /** What to check when the server cannot be reached (create-provider names the setting the URL came from). */
  unreachableHint: string;
}

/**
 * Sends a model call and returns the answer once its status is known to be good: StepAbortedError
 * when the run was stopped, a retryable ProviderError for network trouble, and the classifier's
 * verdict for every failed status (its body read whole).
 */
export async function openResponse(post: JsonPost): Promise<Response> {
  const { url, signal } = post;
  let response: Response;
  try {
    // Redirects are not followed: a 307/308 would re-send the prompt and the key (x-api-key survives
    // even a cross-origin redirect) to whatever host it names.
    response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...post.headers }, body: JSON.stringify(post.body), signal, redirect: 'manual' });
  } catch (error) {
    if (signal.aborted) throw new StepAbortedError();
    throw classifyNetworkFailure(error, url, post.unreachableHint);
  }
  if (response.ok) return response;
  if (response.status >= 300 && response.status < 400) throw redirectRefused(response, post);
  throw classifyHttpFailure({ provider: post.provider, status: response.status, headers: response.headers, body: await bodyText(response, post), endpoint: post.endpoint });
}

/** A redirect answer as a failure no retry mends: the same request would be redirected again. */
function redirectRefused(response: Response, post: JsonPost): ProviderError {
  void response.body?.cancel().catch(() => undefined);
  const location = response.headers.get('location') ?? '(no Location)';
  const message = printable(
    redact(`${post.url} answered HTTP ${response.status}, a redirect to ${location}; acode does not follow redirects with your prompt and key; if that is the server you mean, point runtime.host in the spec at it`),
  );
  return new ProviderError(message, false, { detail: `redirect (HTTP ${response.status})` });
}

/** The whole body of an answer; a connection that breaks meanwhile is network trouble (retryable). */
async function bodyText(response: Response, post: JsonPost): Promise<string> {
  try {
    return await response.text();
  } catch (error) {
    if (post.signal.aborted) throw new StepAbortedError();
    throw new ProviderError(redact(`connection to ${post.url} broke while reading the answer: ${(error as Error).message}`), true, { detail: 'connection broke' });
  }
}

/**
 * A good answer's JSON. A proxy may echo the request (and its key) in an answer too: the keys in use
 * leave every string as it is read. Only they: the answer's code may rightly hold credential-shaped
 * text, and a tool writes what the model wrote (the events that record it are redacted in full when emitted).
 */
export async function readJson(response: Response, post: JsonPost): Promise<unknown> {
  const text = await bodyText(response, post);
  try {
    return JSON.parse(text, (_key, value: unknown) => (typeof value === 'string' ? redactKnown(value) : value)) as unknown;
  } catch {
    throw new ProviderError(`${post.url} answered with something that is not JSON: ${redact(text).slice(0, 120)}`, true);
  }
}

/** A server that was asked to stream may still answer with one JSON body (a proxy, an old server). */
export function isEventStream(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
}

/**
 * One model call over HTTP: the answer's JSON, or the error a continuation needs — StepAbortedError
 * when the run was stopped, a retryable ProviderError for network trouble or a non-JSON answer,
 * and the classifier's verdict for every failed status.
 */
export async function postJson(post: JsonPost): Promise<unknown> {
  return readJson(await openResponse(post), post);
}
