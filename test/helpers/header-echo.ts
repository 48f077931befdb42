import { publicPrefix } from '../../source/secrets/redactor.js';
import type { IncomingHttpHeaders } from 'node:http';
import { anthropicError } from './anthropic-server.js';
import { RawBody } from './local-model-server.js';

export type Protocol = 'openai' | 'anthropic';

const reasons: Record<number, { text: string; openai: string; anthropic: string }> = {
  401: { text: 'Incorrect API key provided', openai: 'invalid_api_key', anthropic: 'authentication_error' },
  403: { text: 'Forbidden: this key may not use this model', openai: 'permission_denied', anthropic: 'permission_error' },
  429: { text: 'Rate limit reached for requests', openai: 'rate_limit_exceeded', anthropic: 'rate_limit_error' },
  500: { text: 'Internal server error', openai: 'server_error', anthropic: 'api_error' },
};

/** The key a request carried: OpenAI's `authorization: Bearer …`, Anthropic's `x-api-key`. */
export function requestKey(headers: IncomingHttpHeaders): string {
  return String(headers['x-api-key'] ?? String(headers.authorization ?? '').replace(/^Bearer\s+/i, ''));
}

/** Every character as a JSON \u escape: a body whose parser, not its text, reveals the key. */
const unicodeEscaped = (text: string) => [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

/**
 * What a careless server or proxy answers with `status`: the request's headers echoed in the error
 * body (as JSON, JSON-escaped again, the key split over two lines, the key \u-escaped so only the
 * JSON parser reveals it) and in a response header. A 500 is a proxy's HTML page instead.
 */
export function headerEcho(status: number, headers: IncomingHttpHeaders, protocol: Protocol, extra: Record<string, string> = {}): { kind: 'error'; status: number; body: RawBody; headers: Record<string, string> } {
  const key = requestKey(headers);
  const echoed = JSON.stringify(headers);
  const replyHeaders = { 'x-echo-authorization': String(headers.authorization ?? headers['x-api-key'] ?? ''), ...extra };
  if (status === 500) {
    const page = `<html><body><h1>500 Internal Server Error</h1><pre>POST /v1 failed\nAuthorization: ${headers.authorization ?? ''}\nx-api-key: ${headers['x-api-key'] ?? ''}\nkey: ${key.slice(0, 13)}\n${key.slice(13)}\n${echoed}</pre></body></html>`;
    return { kind: 'error', status, body: new RawBody(page), headers: replyHeaders };
  }
  const reason = reasons[status]!;
  const message = [
    `${reason.text}: ${key}.`,
    `Request headers: ${echoed}`,
    `The key, wrapped: ${key.slice(0, 15)}`,
    `  ${key.slice(15)}`,
    `Escaped: ${JSON.stringify(echoed)}`,
    'Decoded: @@KEY@@',
  ].join('\n');
  const envelope = protocol === 'openai' ? { error: { message, type: reason.openai, code: reason.openai } } : anthropicError(reason.anthropic, message);
  const json = JSON.stringify(envelope).replace('@@KEY@@', unicodeEscaped(key));
  return { kind: 'error', status, body: new RawBody(json, 'application/json'), headers: replyHeaders };
}

/** Every piece of `secret` of `length` characters or more that appears in `text` (none is the goal). */
export function leakedPieces(text: string, secret: string, length = 8): string[] {
  const pieces: string[] = [];
  // Pieces wholly inside the key's public prefix (`sk-ant-api03-`) are every such key's: no leak.
  for (let i = 0; i + length <= secret.length; i++) {
    if (i + length <= publicPrefix(secret).length) continue;
    const piece = secret.slice(i, i + length);
    if (text.includes(piece)) pieces.push(piece);
  }
  return pieces;
}
