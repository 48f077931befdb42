import { describe, expect, it } from 'vitest';
import { ContextExhaustedError, ProviderError, RateLimitError } from '../../source/engine/stop-errors.js';
import { classifyHttpFailure, classifyText, failureRules, type HttpFailure } from '../../source/providers/failure-classifier.js';
import { parseUsageLimitReset } from '../../source/providers/retry-after.js';

const now = Date.parse('2026-11-22T10:00:00Z');

type Expected = { kind: 'rate_limit'; retryAfterMs?: number } | { kind: 'context' } | { kind: 'error'; retryable: boolean };

/** Real answers, as the providers send them (bodies copied from their documentation and from the wild). */
const table: { name: string; failure: Omit<HttpFailure, 'endpoint' | 'now' | 'headers'> & { headers?: Record<string, string> }; expected: Expected }[] = [
  {
    name: 'OpenAI 429 tokens-per-minute with retry-after-ms',
    failure: { provider: 'openai', status: 429, headers: { 'retry-after-ms': '1500' }, body: '{"error":{"message":"Rate limit reached for gpt-4o-mini in organization org-abc on tokens per min (TPM): Limit 200000, Used 199000, Requested 2000. Please try again in 300ms. Visit https://platform.openai.com/account/rate-limits to learn more.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}' },
    expected: { kind: 'rate_limit', retryAfterMs: 1500 },
  },
  {
    name: 'OpenAI 429 with only the wait in its text',
    failure: { provider: 'openai', status: 429, body: '{"error":{"message":"Rate limit reached for gpt-4o in organization org-abc on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in 1.5s.","type":"requests","param":null,"code":"rate_limit_exceeded"}}' },
    expected: { kind: 'rate_limit', retryAfterMs: 1500 },
  },
  {
    name: 'OpenAI 429 with x-ratelimit-reset-* headers',
    failure: { provider: 'openai', status: 429, headers: { 'x-ratelimit-reset-requests': '1s', 'x-ratelimit-reset-tokens': '6m0s' }, body: '{"error":{"message":"Rate limit reached","type":"tokens","code":"rate_limit_exceeded"}}' },
    expected: { kind: 'rate_limit', retryAfterMs: 360_000 },
  },
  {
    name: 'OpenAI 429 insufficient_quota: waiting does not help',
    failure: { provider: 'openai', status: 429, body: '{"error":{"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}' },
    expected: { kind: 'error', retryable: false },
  },
  {
    name: 'OpenAI 429 request larger than the per-minute limit',
    failure: { provider: 'openai', status: 429, body: '{"error":{"message":"Request too large for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Requested 52301. The input or output tokens must be reduced in order to run successfully.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}' },
    expected: { kind: 'error', retryable: false },
  },
  {
    name: 'Anthropic 400 input plus max_tokens over the context limit',
    failure: { provider: 'anthropic', status: 400, body: '{"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again"}}' },
    expected: { kind: 'context' },
  },
  {
    name: 'OpenAI 400 context_length_exceeded',
    failure: { provider: 'openai', status: 400, body: `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}` },
    expected: { kind: 'context' },
  },
  {
    name: 'vLLM 400 maximum context length',
    failure: { provider: 'openai', status: 400, body: `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}` },
    expected: { kind: 'context' },
  },
  {
    name: 'llama.cpp 400 exceed_context_size_error',
    failure: { provider: 'openai', status: 400, body: '{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}' },
    expected: { kind: 'context' },
  },
  {
    name: 'Ollama 503 server busy',
    failure: { provider: 'openai', status: 503, body: '{"error":"server busy, please try again.  maximum pending requests exceeded"}' },
    expected: { kind: 'rate_limit' },
  },
  {
    name: 'Ollama 404 model not found',
    failure: { provider: 'openai', status: 404, body: '{"error":{"message":"model \\"llama9\\" not found, try pulling it first","type":"api_error","param":null,"code":null}}' },
    expected: { kind: 'error', retryable: false },
  },
  {
    name: 'OpenAI 401 invalid key',
    failure: { provider: 'openai', status: 401, body: '{"error":{"message":"Incorrect API key provided: sk-abc***xyz. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}' },
    expected: { kind: 'error', retryable: false },
  },
  {
    name: 'OpenAI 500 server_error',
    failure: { provider: 'openai', status: 500, body: '{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}' },
    expected: { kind: 'error', retryable: true },
  },
  {
    name: 'Anthropic 429 rate_limit_error with retry-after',
    failure: { provider: 'anthropic', status: 429, headers: { 'retry-after': '41' }, body: '{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization (abc) of 50,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits."}}' },
    expected: { kind: 'rate_limit', retryAfterMs: 41_000 },
  },
  {
    name: 'Anthropic 429 with only anthropic-ratelimit-*-reset',
    failure: { provider: 'anthropic', status: 429, headers: { 'anthropic-ratelimit-requests-reset': '2026-11-22T10:00:05Z', 'anthropic-ratelimit-tokens-reset': '2026-11-22T10:00:30Z' }, body: '{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}' },
    expected: { kind: 'rate_limit', retryAfterMs: 30_000 },
  },
  {
    name: 'Anthropic 529 overloaded_error',
    failure: { provider: 'anthropic', status: 529, body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' },
    expected: { kind: 'rate_limit' },
  },
  {
    name: 'Anthropic 400 prompt is too long',
    failure: { provider: 'anthropic', status: 400, body: '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 215000 tokens > 200000 maximum"}}' },
    expected: { kind: 'context' },
  },
  {
    name: 'Anthropic 413 request_too_large',
    failure: { provider: 'anthropic', status: 413, body: '{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}' },
    expected: { kind: 'context' },
  },
  {
    name: 'Anthropic 401 authentication_error',
    failure: { provider: 'anthropic', status: 401, body: '{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}' },
    expected: { kind: 'error', retryable: false },
  },
  {
    name: 'Anthropic 500 api_error',
    failure: { provider: 'anthropic', status: 500, body: '{"type":"error","error":{"type":"api_error","message":"Internal server error"}}' },
    expected: { kind: 'error', retryable: true },
  },
  {
    name: 'a proxy HTML page on 502',
    failure: { provider: 'openai', status: 502, body: '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>' },
    expected: { kind: 'error', retryable: true },
  },
];

describe('the failure classifier', () => {
  for (const row of table) {
    it(`classifies ${row.name}`, () => {
      const error = classifyHttpFailure({ ...row.failure, headers: new Headers(row.failure.headers ?? {}), endpoint: 'https://api.example', now });
      switch (row.expected.kind) {
        case 'rate_limit':
          expect(error).toBeInstanceOf(RateLimitError);
          expect((error as RateLimitError).retryAfterMs).toBe(row.expected.retryAfterMs);
          break;
        case 'context':
          expect(error).toBeInstanceOf(ContextExhaustedError);
          break;
        case 'error':
          expect(error).toBeInstanceOf(ProviderError);
          expect((error as ProviderError).retryable).toBe(row.expected.retryable);
      }
      expect(error.message).toContain('https://api.example');
    });
  }

  it('names every rule it applies, in order', () => {
    expect(failureRules[0]).toMatch(/quota/);
    expect(failureRules.length).toBeGreaterThanOrEqual(5);
  });

  it('reads the reset time of subscription usage limits that agent CLIs print', () => {
    const local = (h: number, m = 0) => {
      const at = new Date(now);
      at.setHours(h, m, 0, 0);
      if (at.getTime() <= now - 15 * 60_000) at.setDate(at.getDate() + 1);
      return Math.max(0, at.getTime() - now);
    };
    expect(parseUsageLimitReset('Claude AI usage limit reached|1795428000', now)).toBe(1795428000 * 1000 - now);
    expect(parseUsageLimitReset('5-hour limit reached ∙ resets 3pm', now)).toBe(local(15));
    // A named zone is that zone's wall clock: Berlin is UTC+1 in November, Los Angeles UTC−8.
    expect(parseUsageLimitReset('Claude usage limit reached. Your limit will reset at 3:30 pm (Europe/Berlin).', now)).toBe(4.5 * 3_600_000);
    expect(parseUsageLimitReset('Your limit will reset at 3pm (America/Los_Angeles)', now)).toBe(13 * 3_600_000);
    expect(parseUsageLimitReset('limit reached, resets 10am UTC', now)).toBe(0); // exactly now
    // Read just after it passed (a late answer, clock skew): now, not tomorrow.
    expect(parseUsageLimitReset('limit reached, resets 9:55am (UTC)', now)).toBe(0);
    expect(parseUsageLimitReset('limit reached, resets 9:30am (UTC)', now)).toBe(23.5 * 3_600_000);
    expect(parseUsageLimitReset('usage limit reached, resets at 2026-11-22T12:00:00Z', now)).toBe(2 * 3_600_000);
    expect(parseUsageLimitReset("You've hit your usage limit. Upgrade to Pro or try again in 4 days 20 hours 9 minutes.", now)).toBe(((4 * 24 + 20) * 60 + 9) * 60_000);
    expect(parseUsageLimitReset('{"type":"usage_limit_reached","resets_in_seconds": 1234}', now)).toBe(1_234_000);
    expect(parseUsageLimitReset('something else went wrong', now)).toBeUndefined();
  });

  it('classifies text-only failures: usage limits with their reset, context overflows, and nothing else', () => {
    const limit = classifyText('Claude AI usage limit reached|1795428000', now);
    expect(limit).toBeInstanceOf(RateLimitError);
    expect((limit as RateLimitError).retryAfterMs).toBe(1795428000 * 1000 - now);
    expect(classifyText('Error: prompt is too long: 201000 tokens > 200000 maximum', now)).toBeInstanceOf(ContextExhaustedError);
    expect(classifyText('ECONNRESET', now)).toBeUndefined();
  });
});
