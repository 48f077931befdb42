import { ContextExhaustedError, ProviderError, RateLimitError } from '../engine/stop-errors.js';
import { redact } from '../secrets/redactor.js';
import { parseRetryAfter, parseUsageLimitReset, resetHeaderMs, textRetryAfterMs } from './retry-after.js';

/** A failed HTTP answer from a model provider, as the classifier reads it. */
export interface HttpFailure {
  provider: 'openai' | 'anthropic';
  status: number;
  headers: Headers;
  /** The raw body: every provider wraps its message differently. */
  body: string;
  /** Where the request went, for the message. */
  endpoint: string;
  now?: number;
  /** `stream`: the error came as an event inside a stream the server had begun with 200 (the status is the one its type stands for). */
  during?: 'stream';
}

interface Details {
  message: string;
  /** OpenAI's error.code / error.type, Anthropic's error.type, llama.cpp's error.type. */
  code: string;
}

/** The error message and code from OpenAI, Anthropic, Ollama, vLLM and llama.cpp error bodies. */
export function errorDetails(body: string): Details {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; message?: unknown; type?: unknown; code?: unknown };
    const error = parsed.error;
    if (typeof error === 'string') return { message: error, code: '' };
    if (error && typeof error === 'object') {
      const e = error as { message?: unknown; code?: unknown; type?: unknown };
      const code = typeof e.code === 'string' ? e.code : typeof e.type === 'string' ? e.type : '';
      return { message: typeof e.message === 'string' ? e.message : redact(body).slice(0, 300), code };
    }
    // vLLM: {"object":"error","message":…,"type":"BadRequestError"}
    if (typeof parsed.message === 'string') return { message: parsed.message, code: typeof parsed.type === 'string' ? parsed.type : '' };
  } catch {
    // not JSON: a proxy's HTML page, a plain-text error
  }
  return { message: redact(body).slice(0, 300), code: '' };
}

const contextText = /context[_ ]length|maximum context|context window|context size|context limit|too many tokens|prompt is too long|exceed_context_size|input is too long/i;
const usageLimitText = /usage limit|hit your (usage )?limit|limit reached|quota will reset|resets? (at|in)\b/i;
const overloadText = /overloaded|server busy|capacity/i;

interface Rule {
  /** What the rule recognises, for the table's readers and the tests. */
  name: string;
  matches(failure: HttpFailure, details: Details): boolean;
  error(failure: HttpFailure, details: Details, what: string): Error;
}

const retryAfter = (f: HttpFailure, d: Details) => parseRetryAfter(f.headers, f.now) ?? resetHeaderMs(f.headers, f.now) ?? parseUsageLimitReset(d.message, f.now) ?? textRetryAfterMs(d.message);

/**
 * Failures in the order they are tried: the first rule that matches decides. Everything a
 * provider answers that no rule knows is a ProviderError — retryable for server-side statuses.
 */
const rules: Rule[] = [
  {
    name: 'quota exhausted (OpenAI insufficient_quota): waiting does not help',
    matches: (f, d) => d.code === 'insufficient_quota' || (f.status === 429 && /exceeded your current quota/i.test(d.message)),
    error: (_f, _d, what) => new ProviderError(`${what} (quota exhausted: add credit or change the key)`, false),
  },
  {
    name: 'a request larger than the whole per-minute limit (OpenAI "Request too large"): waiting does not help',
    matches: (f, d) => f.status === 429 && /request too large/i.test(d.message),
    error: (_f, _d, what) => new ProviderError(`${what} (shorten the step's input, or raise the organization's limit)`, false),
  },
  {
    name: 'rate limited: HTTP 429, Anthropic rate_limit_error',
    matches: (f, d) => f.status === 429 || d.code === 'rate_limit_error' || d.code === 'rate_limit_exceeded',
    error: (f, d, what) => new RateLimitError(what, retryAfter(f, d), `HTTP ${f.status}`),
  },
  {
    name: 'overloaded: Anthropic 529 overloaded_error, Ollama 503 server busy',
    matches: (f, d) => f.status === 529 || d.code === 'overloaded_error' || (f.status === 503 && overloadText.test(d.message)),
    error: (f, d, what) => new RateLimitError(what, retryAfter(f, d), `HTTP ${f.status}`),
  },
  {
    name: 'usage limit of a subscription: "usage limit reached … resets at …"',
    matches: (_f, d) => usageLimitText.test(d.message) && parseUsageLimitReset(d.message) !== undefined,
    error: (f, d, what) => new RateLimitError(what, parseUsageLimitReset(d.message, f.now), 'usage limit'),
  },
  {
    name: 'context exhausted: context_length_exceeded, "prompt is too long", llama.cpp exceed_context_size_error',
    matches: (f, d) => d.code === 'context_length_exceeded' || d.code === 'exceed_context_size_error' || f.status === 413 || contextText.test(d.message),
    error: (_f, _d, what) => new ContextExhaustedError(what),
  },
  {
    name: 'credentials refused',
    matches: (f) => f.status === 401 || f.status === 403,
    error: (f, _d, what) => new ProviderError(`${what} (check ${f.provider === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY'})`, false),
  },
  {
    name: 'no such model or endpoint',
    matches: (f) => f.status === 404,
    error: (_f, _d, what) => new ProviderError(`${what} (check runtime.model_id and runtime.host)`, false),
  },
];

/** Maps a provider's failed answer to what a continuation must do: wait, start a new conversation, or stop. */
export function classifyHttpFailure(failure: HttpFailure): Error {
  const details = errorDetails(failure.body);
  // Servers and proxies echo request headers (the key among them) in error bodies; what JSON
  // decoding revealed (an escaped key) is redacted with the rest, before any rule quotes it.
  const what = redact(failure.during === 'stream' ? `error in the answer stream from ${failure.endpoint}: ${details.message}${details.code ? ` (${details.code})` : ''}` : `HTTP ${failure.status} from ${failure.endpoint}: ${details.message}`);
  const rule = rules.find((r) => r.matches(failure, details));
  if (rule) return rule.error(failure, details, what);
  return new ProviderError(what, failure.status === 408 || failure.status === 409 || failure.status >= 500, { detail: `HTTP ${failure.status}` });
}

/** The HTTP status each Anthropic error type stands for (its errors documentation), for errors sent inside a stream. */
const anthropicStatus: Record<string, number> = {
  invalid_request_error: 400, authentication_error: 401, permission_error: 403, not_found_error: 404, request_too_large: 413, rate_limit_error: 429, api_error: 500, overloaded_error: 529,
};

/**
 * An error event inside an answer stream (Anthropic's `event: error`, an OpenAI-compatible
 * server's `data: {"error": …}`), classified as the failed status it stands for: a numeric code
 * or Anthropic's error type names it; anything else broke on the server's side (retryable).
 */
export function classifyStreamError(provider: HttpFailure['provider'], data: string, endpoint: string): Error {
  const { code } = errorDetails(data);
  let numeric: unknown;
  try {
    numeric = (JSON.parse(data) as { error?: { code?: unknown } }).error?.code;
  } catch {
    // not JSON: a server error all the same
  }
  const status = typeof numeric === 'number' && numeric >= 400 && numeric < 600 ? numeric : (anthropicStatus[code] ?? 500);
  return classifyHttpFailure({ provider, status, headers: new Headers(), body: data, endpoint, during: 'stream' });
}

/** The rules' names, in order: what the classifier knows. */
export const failureRules: readonly string[] = rules.map((rule) => rule.name);

/**
 * An error that is only text (an agent CLI's output, a network library's message): a usage limit
 * with its reset time, or a context overflow; undefined when the text says neither.
 */
export function classifyText(text: string, now: number = Date.now()): RateLimitError | ContextExhaustedError | undefined {
  if (usageLimitText.test(text)) {
    const reset = parseUsageLimitReset(text, now);
    if (reset !== undefined || /usage limit/i.test(text)) return new RateLimitError(redact(text.trim()).slice(0, 300), reset);
  }
  if (contextText.test(text)) return new ContextExhaustedError(redact(text.trim()).slice(0, 300));
  return undefined;
}
