import { isIP } from 'node:net';
import { ProviderError } from '../engine/stop-errors.js';
import { redact } from '../secrets/redactor.js';

/** A refused connection on this machine or its network is retried once, this soon, then the step pauses. */
export const localRetryDelayMs = 250;

/** The code of a call dropped because its connection carried nothing for too long (post-json.ts silentAnswerMs). */
export const silentAnswerCode = 'ACODE_ANSWER_SILENT';
/** The same for a stream that carried only keep-alive comments (event-stream.ts). */
export const keepAliveOnlyCode = 'ACODE_ANSWER_KEEPALIVE_ONLY';

const causeWords: Readonly<Record<string, string>> = {
  [silentAnswerCode]: 'the server sent nothing for 5 minutes',
  [keepAliveOnlyCode]: 'the server sent only keep-alive comments for 5 minutes',
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  UND_ERR_SOCKET: 'connection closed',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no answer in time',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

type CodedError = { code?: unknown; errors?: { code?: unknown }[] } | undefined;

/** The code an error carries itself, or the first of an AggregateError's (happy eyeballs tried several addresses). */
function ownCode(error: CodedError): string | undefined {
  if (typeof error?.code === 'string') return error.code;
  const first = Array.isArray(error?.errors) ? error.errors.find((e) => typeof e?.code === 'string')?.code : undefined;
  return typeof first === 'string' ? first : undefined;
}

/**
 * The system error code of a failed request: node:http's error carries it (or, after happy eyeballs,
 * an AggregateError's `errors` do); fetch wraps the same shapes in `cause`.
 */
export function networkErrorCode(error: unknown): string | undefined {
  return ownCode(error as CodedError) ?? ownCode((error as { cause?: CodedError } | undefined)?.cause);
}

/** "connection refused" for ECONNREFUSED; the code itself when it has no words. */
export function networkCauseText(code: string | undefined, fallback: string): string {
  if (code === undefined) return fallback;
  return causeWords[code] ?? code;
}

function privateIpv4(host: string): boolean {
  const [a = -1, b = -1] = host.split('.').map(Number);
  // 0.0.0.0: what a server listening on every interface prints (`OLLAMA_HOST=0.0.0.0`); connecting to it reaches this machine.
  return host === '0.0.0.0' || a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
}

/** The IPv4 address inside an IPv4-mapped IPv6 one; WHATWG URL writes `[::ffff:127.0.0.1]` as `::ffff:7f00:1`. */
function mappedIpv4(host: string): string | undefined {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host);
  if (dotted) return dotted[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (!hex) return undefined;
  const [high, low] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)];
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/**
 * This machine or its local network: loopback, unspecified, RFC 1918 and link-local addresses,
 * `localhost`, `.local` (mDNS) names, and single-label names (`ollama`: a Docker Compose service, a
 * host on the LAN's DNS). A server there that refuses connections is not running; waiting will not start it.
 */
export function isLocalHost(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local')) return true;
  const kind = isIP(host);
  if (kind === 4) return privateIpv4(host);
  if (kind === 6) {
    if (host === '::1' || host === '::') return true;
    const mapped = mappedIpv4(host);
    if (mapped) return privateIpv4(mapped);
    return /^f[cd]/.test(host) || /^fe[89ab]/.test(host);
  }
  return host !== '' && !host.includes('.');
}

/**
 * A request that never got an answer (refused, reset, timed out, unknown host), as the error a
 * continuation needs: retryable with the usual backoff — except a refused connection on a local
 * host, retried once after a moment, since a server that is not running does not start by itself.
 */
export function classifyNetworkFailure(error: unknown, url: string, hint: string): ProviderError {
  const code = networkErrorCode(error);
  const detail = networkCauseText(code, (error as Error).message);
  const named = code && causeWords[code] ? `${detail}, ${code}` : detail;
  const message = redact(`cannot reach ${url} (${named}); ${hint}`);
  if (code === 'ECONNREFUSED' && isLocalHost(url)) return new ProviderError(message, true, { detail, retryAfterMs: localRetryDelayMs, retryLimit: 1 });
  return new ProviderError(message, true, { detail });
}
