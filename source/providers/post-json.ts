import { setMaxListeners } from 'node:events';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { ProviderError, StepAbortedError } from '../engine/stop-errors.js';
import { printable } from '../printable-text.js';
import { redact, redactKnown } from '../secrets/redactor.js';
import { classifyHttpFailure, type HttpFailure } from './failure-classifier.js';
import { classifyNetworkFailure, silentAnswerCode } from './network-failure.js';
import { urlWithoutCredentials } from '../secrets/url-credentials.js';

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
  /** The call is dropped after its connection carried nothing this long: silentAnswerMs unless a test says less. */
  silentAfterMs?: number;
}

/** A model call's answer: its status, its headers, and its body as it arrives off the socket. */
export interface ModelResponse {
  status: number;
  /** A header's value (a repeated header's values joined with ", ", as fetch's Headers gives them). */
  header(name: string): string | undefined;
  body: IncomingMessage;
}

// Connections are kept for the next model call (as fetch's pool keeps them); an idle socket is unref'd
// by the agent, so it never keeps the process alive, and dropped after 5 s idle, as Node's global agent does.
// Happy eyeballs, as fetch does: `localhost` may resolve to ::1 first while the server listens on 127.0.0.1.
const agentOptions = { keepAlive: true, timeout: 5_000, scheduling: 'lifo', autoSelectFamily: true } as const;

/**
 * A model call whose connection carries nothing for this long — no answer's head, or no byte of its
 * body — is dropped as network trouble (retryable), as fetch dropped it (undici's headers and body
 * timeouts): a hung server or a proxy that lost its upstream must not hold a run forever. Long, since
 * a model may think for minutes before its first byte when it does not stream.
 */
export const silentAnswerMs = 300_000;

const httpAgent = new HttpAgent(agentOptions);
const httpsAgent = new HttpsAgent(agentOptions);

/**
 * Sends a model call and returns the answer once its status is known to be good: StepAbortedError
 * when the run was stopped, a retryable ProviderError for network trouble, and the classifier's
 * verdict for every failed status (its body read whole). node:http, not fetch: a streamed answer
 * read off an IncomingMessage costs a fraction of the CPU of fetch's web streams (bench: `sse`).
 */
export async function openResponse(post: JsonPost): Promise<ModelResponse> {
  const { url, signal } = post;
  refuseCredentials(url);
  let body: IncomingMessage;
  try {
    body = await send(post);
  } catch (error) {
    if (signal.aborted) throw new StepAbortedError();
    if (error instanceof ProviderError) throw error;
    throw classifyNetworkFailure(error, url, post.unreachableHint);
  }
  const response: ModelResponse = { status: body.statusCode ?? 0, header: (name) => headerValue(body, name), body };
  if (response.status >= 200 && response.status < 300) return response;
  if (response.status >= 300 && response.status < 400) throw redirectRefused(response, post);
  throw classifyHttpFailure({ provider: post.provider, status: response.status, headers: fetchHeaders(body), body: await bodyText(response, post), endpoint: post.endpoint });
}

/**
 * A user or password in the server's URL would go out as Basic auth on every call, and the URL is
 * named in messages: refused (fetch refused it too), naming the URL without them.
 */
function refuseCredentials(url: string): void {
  const shown = urlWithoutCredentials(url);
  if (shown === undefined) return;
  throw new ProviderError(`the model server's URL holds a user name or password (${shown} with them removed); acode sends keys only from the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY): take them out of the URL`, false, { detail: 'credentials in URL' });
}

/**
 * POSTs the JSON body; resolves with the answer's head. Redirects are not followed (node:http never
 * does): a 307/308 would re-send the prompt and the key (x-api-key survives even a cross-origin
 * redirect) to whatever host it names. The signal destroys the request and its socket, connecting or mid-body.
 */
function send(post: JsonPost): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const target = new URL(post.url);
    const payload = JSON.stringify(post.body);
    const https = target.protocol === 'https:';
    // Each call listens on the run's one signal until it ends; a run with 11 or more calls at once
    // would have Node print a leak warning across the run view (fetch lifted the limit likewise).
    setMaxListeners(0, post.signal);
    const request = (https ? httpsRequest : httpRequest)(target, {
      method: 'POST',
      agent: https ? httpsAgent : httpAgent,
      signal: post.signal,
      headers: { accept: '*/*', 'accept-encoding': 'identity', 'content-type': 'application/json', ...headerValues(post.headers), 'content-length': Buffer.byteLength(payload) },
    });
    let answer: IncomingMessage | undefined;
    request.setTimeout(post.silentAfterMs ?? silentAnswerMs, () => {
      const silent = Object.assign(new Error('the connection carried nothing for too long'), { code: silentAnswerCode });
      // Once the answer's head is in, its body carries the error to whoever reads it.
      if (answer) answer.destroy(silent);
      else request.destroy(silent);
    });
    request.on('error', reject);
    request.on('response', (response) => {
      answer = response;
      // An error after the caller has the answer reaches it through the body's own 'error'.
      response.on('error', () => undefined);
      resolve(response);
    });
    request.end(payload);
  });
}

/**
 * Header values as fetch sent them: without the whitespace around them (a key read from a secret
 * file ends in a newline, which node:http refuses outright). A value holding a character no header
 * may hold is refused, naming the header, never its value — not reported as a server out of reach.
 */
function headerValues(headers: Record<string, string>): Record<string, string> {
  const sent: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const trimmed = value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
    // What node:http sends (HTTP's field-value: tab, visible ASCII, Latin-1); it refuses anything else before sending.
    if (/[^\t\x20-\x7e\x80-\xff]/.test(trimmed)) {
      throw new ProviderError(`the ${name} header holds a character that cannot be sent (a line break, a control character, or one past Latin-1 such as a zero-width space pasted with the key); set the key again without it`, false, { detail: 'invalid header' });
    }
    sent[name] = trimmed;
  }
  return sent;
}

function headerValue(response: IncomingMessage, name: string): string | undefined {
  const value = response.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The failed answer's headers as the classifier reads them (retry-after and the rate-limit resets). */
function fetchHeaders(response: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    for (const one of Array.isArray(value) ? value : [value ?? '']) {
      try {
        headers.append(name, one);
      } catch {
        // a value Headers refuses is one no rule reads
      }
    }
  }
  return headers;
}

/** A redirect answer as a failure no retry mends: the same request would be redirected again. */
function redirectRefused(response: ModelResponse, post: JsonPost): ProviderError {
  response.body.destroy();
  const location = response.header('location') ?? '(no Location)';
  const message = printable(
    redact(`${post.url} answered HTTP ${response.status}, a redirect to ${location}; acode does not follow redirects with your prompt and key; if that is the server you mean, point runtime.host in the spec at it`),
  );
  return new ProviderError(message, false, { detail: `redirect (HTTP ${response.status})` });
}

/**
 * The most an answer may bring (its body's bytes, streamed or not). A model's longest answers are a
 * few MB even as a stream's events; a server that never ends one grew acode to 9 GB and a crash.
 * Refused, not retried: waiting does not make a server end its answers.
 */
export const maxAnswerBytes = 64 * 1024 * 1024;

/** The answer from `url` was longer than maxAnswerBytes: dropped. */
export function answerTooLong(url: string): ProviderError {
  return new ProviderError(`${url} sent an answer over ${maxAnswerBytes / 1024 / 1024} MiB without ending it; it was dropped (a model's answer is far smaller: check the server)`, false, { detail: 'answer too long' });
}

/** Bodies compressed by a proxy although acode asked for none (accept-encoding: identity): read as sent. */
function decompressed(bytes: Buffer, encoding: string | undefined, url: string): Buffer {
  const how = encoding?.trim().toLowerCase();
  if (!how || how === 'identity') return bytes;
  try {
    if (how === 'gzip' || how === 'x-gzip') return gunzipSync(bytes, { maxOutputLength: maxAnswerBytes });
    if (how === 'deflate') return inflateSync(bytes, { maxOutputLength: maxAnswerBytes });
    if (how === 'br') return brotliDecompressSync(bytes, { maxOutputLength: maxAnswerBytes });
  } catch (error) {
    // Past maxOutputLength: an answer too long, as one sent plain would be (not retried).
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw answerTooLong(url);
    throw new ProviderError(`${url} sent a ${how}-encoded answer that does not decompress (${(error as Error).message}); it was dropped`, true, { detail: 'bad encoding' });
  }
  throw new ProviderError(`${url} sent its answer encoded as '${how}', which acode cannot read (it asks for none); a proxy in between may be compressing it`, false, { detail: 'bad encoding' });
}

/** The whole body of an answer; a connection that breaks meanwhile is network trouble (retryable). */
async function bodyText(response: ModelResponse, post: JsonPost): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > maxAnswerBytes) {
        response.body.destroy();
        throw answerTooLong(post.url);
      }
      chunks.push(chunk as Buffer);
    }
    // An answer cut short without a socket error (the server closed mid-body) is a broken connection too.
    if (!response.body.complete) throw new Error('the connection closed before the answer ended');
  } catch (error) {
    if (post.signal.aborted) throw new StepAbortedError();
    if (error instanceof ProviderError) throw error;
    throw new ProviderError(redact(`connection to ${post.url} broke while reading the answer: ${(error as Error).message}`), true, { detail: 'connection broke' });
  }
  return new TextDecoder().decode(decompressed(Buffer.concat(chunks), response.header('content-encoding'), post.url));
}

/**
 * A good answer's JSON. A proxy may echo the request (and its key) in an answer too: the keys in use
 * leave every string as it is read. Only they: the answer's code may rightly hold credential-shaped
 * text, and a tool writes what the model wrote (the events that record it are redacted in full when emitted).
 */
export async function readJson(response: ModelResponse, post: JsonPost): Promise<unknown> {
  const text = await bodyText(response, post);
  try {
    return JSON.parse(text, (_key, value: unknown) => (typeof value === 'string' ? redactKnown(value) : value)) as unknown;
  } catch {
    throw new ProviderError(`${post.url} answered with something that is not JSON: ${redact(text).slice(0, 120)}`, true);
  }
}

/** A server that was asked to stream may still answer with one JSON body (a proxy, an old server). */
export function isEventStream(response: ModelResponse): boolean {
  return (response.header('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
}

/**
 * One model call over HTTP: the answer's JSON, or the error a continuation needs — StepAbortedError
 * when the run was stopped, a retryable ProviderError for network trouble or a non-JSON answer,
 * and the classifier's verdict for every failed status.
 */
export async function postJson(post: JsonPost): Promise<unknown> {
  return readJson(await openResponse(post), post);
}
