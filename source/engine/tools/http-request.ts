import { redactKnown } from '../../secrets/redactor.js';
import { StepAbortedError } from '../stop-errors.js';
import { ToolInputError } from './confined-path.js';

/** The methods strands-cli's http_request takes. */
export const httpMethods = ['GET', 'POST', 'PUT', 'DELETE'] as const;
export type HttpMethod = (typeof httpMethods)[number];

/** Bytes of a response body read at most: the rest is not downloaded. */
export const maxResponseBytes = 1024 * 1024;
/** Seconds a request may take when the call names none, and at most when it does. */
export const defaultTimeoutS = 30;
export const maxTimeoutS = 120;
/** Redirects followed, each to an allowed host only. */
const maxRedirects = 5;

export interface HttpRequestArgs {
  url: URL;
  /** One of httpMethods; an HTTP executor also sends PATCH, HEAD and OPTIONS. */
  method: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

/**
 * Whether `url` is one the spec lets http_request reach: its host (any port) or `host:port` is in
 * `security.guardrails.allow_hosts`, or a `*.example.com` entry covers it. Only http and https.
 */
export function hostAllowed(url: URL, allowHosts: readonly string[]): boolean {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return allowHosts.some((entry) => {
    const wanted = entry.trim().toLowerCase();
    const [name, wantedPort] = /^\[.*\]/.test(wanted) ? [wanted.slice(1, wanted.indexOf(']')), wanted.slice(wanted.indexOf(']') + 2) || undefined] : (wanted.split(':') as [string, string | undefined]);
    if (wantedPort !== undefined && wantedPort !== port) return false;
    return name.startsWith('*.') ? host.endsWith(name.slice(1)) : host === name;
  });
}

/** The call's arguments, checked: a bad one is an error for the model, before anything is sent. */
export function readHttpArgs(args: Record<string, unknown>, allowHosts: readonly string[]): HttpRequestArgs {
  if (typeof args.url !== 'string' || !URL.canParse(args.url)) throw new ToolInputError(`'url' must be an absolute http(s) URL`);
  const url = new URL(args.url);
  if (url.username || url.password) throw new ToolInputError('a URL with a user name or password in it is not sent: put credentials in a header');
  if (!hostAllowed(url, allowHosts)) {
    throw new ToolInputError(
      allowHosts.length
        ? `${url.protocol}//${url.host} is not a host this workflow may reach (security.guardrails.allow_hosts: ${allowHosts.join(', ')})`
        : `this workflow allows http_request no host (its spec has no security.guardrails.allow_hosts)`,
    );
  }
  const method = (typeof args.method === 'string' ? args.method : 'GET').toUpperCase();
  if (!(httpMethods as readonly string[]).includes(method)) throw new ToolInputError(`method must be one of ${httpMethods.join(', ')}`);
  const headers: Record<string, string> = {};
  if (args.headers !== undefined && (typeof args.headers !== 'object' || args.headers === null || Array.isArray(args.headers))) throw new ToolInputError("'headers' must be an object of names to values");
  for (const [name, value] of Object.entries((args.headers ?? {}) as Record<string, unknown>)) headers[name] = String(value);
  const body = args.body === undefined || args.body === null ? undefined : typeof args.body === 'string' ? args.body : JSON.stringify(args.body);
  const seconds = typeof args.timeout === 'number' && args.timeout > 0 ? Math.min(args.timeout, maxTimeoutS) : defaultTimeoutS;
  return { url, method, headers, body: method === 'GET' || method === 'DELETE' ? undefined : body, timeoutMs: seconds * 1000 };
}

/** Whether a call may change something on the server: journaled, and never re-sent blindly after a crash. */
export function changesServer(args: Record<string, unknown>): boolean {
  return !['GET', 'HEAD', 'OPTIONS'].includes(typeof args.method === 'string' ? args.method.toUpperCase() : 'GET');
}

/** Reads at most `limit` bytes of a body, then stops the download. */
async function readBounded(response: Response, limit: number): Promise<{ bytes: Buffer; cut: boolean }> {
  if (!response.body) return { bytes: Buffer.alloc(0), cut: false };
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes: Buffer.concat(chunks), cut: false };
    chunks.push(Buffer.from(value));
    size += value.length;
    if (size > limit) {
      await reader.cancel();
      return { bytes: Buffer.concat(chunks).subarray(0, limit), cut: true };
    }
  }
}

/**
 * Sends the request and answers as strands-cli's http_request does (status, headers, body), with
 * redirects followed only to allowed hosts, the body cut at `maxResponseBytes`, and the whole
 * exchange bounded by the call's timeout and the run's stop. What the server sends back loses every
 * registered secret (the provider's key, `env.secrets`) before the model or the log sees it: a
 * server that echoes a credential leaks nothing.
 */
export async function sendHttpRequest(request: HttpRequestArgs, allowHosts: readonly string[], signal: AbortSignal): Promise<string> {
  const bounded = AbortSignal.any([signal, AbortSignal.timeout(request.timeoutMs)]);
  let url = request.url;
  let response: Response;
  try {
    for (let hop = 0; ; hop++) {
      const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : request.body;
      response = await fetch(url, { method: request.method, headers: request.headers, body, redirect: 'manual', signal: bounded });
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) break;
      await response.body?.cancel();
      const next = new URL(location, url);
      if (hop === maxRedirects) throw new ToolInputError(`more than ${maxRedirects} redirects`);
      if (!hostAllowed(next, allowHosts)) throw new ToolInputError(`redirected to ${next.protocol}//${next.host}, which is not a host this workflow may reach; not followed`);
      url = next;
    }
    const { bytes, cut } = await readBounded(response, maxResponseBytes);
    const headers = JSON.stringify(Object.fromEntries(response.headers), null, 2);
    const text = `Status: ${response.status}\n\nHeaders:\n${headers}\n\nBody:\n${bytes.toString('utf8')}${cut ? `\n[… cut at ${maxResponseBytes} bytes]` : ''}`;
    return redactKnown(text);
  } catch (error) {
    if (error instanceof ToolInputError) throw error;
    // The run was stopped (Ctrl+C): the step stops, and a request that changes the server stays uncertain.
    if (signal.aborted) throw new StepAbortedError();
    if (bounded.aborted) throw new ToolInputError(`no answer within ${request.timeoutMs / 1000} s`);
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new ToolInputError(`request failed: ${redactKnown(cause?.code ?? cause?.message ?? (error as Error).message)}`);
  }
}
