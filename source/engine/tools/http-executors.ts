import { secrets } from '../../secrets/redactor.js';
import type { HttpExecutorSpec, WorkflowSpec } from '../../spec/schema.js';
import type { ToolSpec } from '../provider.js';
import { ToolInputError } from './confined-path.js';
import { defaultTimeoutS, maxTimeoutS, type HttpRequestArgs } from './http-request.js';

/** The methods strands-cli's executors take. */
const executorMethods = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'];

/** An executor ready to send: its base URL and its headers with `${NAME}` read. */
export interface HttpExecutor {
  id: string;
  baseUrl: URL;
  headers: Record<string, string>;
  timeoutMs: number;
}

/** The spec's executors by id. */
export function executorsOf(spec: WorkflowSpec): Map<string, HttpExecutorSpec> {
  return new Map((spec.tools?.http_executors ?? []).map((e) => [e.id, e]));
}

/** The tool an executor is to the model, described from its metadata as strands-cli describes it. */
export function executorToolSpec(config: HttpExecutorSpec): ToolSpec {
  const parts = [config.description ?? `HTTP executor for ${config.base_url}`];
  if (config.authentication_info) parts.push(`\n\nAuthentication: ${config.authentication_info}`);
  if (config.response_format) parts.push(`\nResponse format: ${config.response_format}`);
  if (config.common_endpoints?.length) {
    parts.push('\n\nCommon endpoints:');
    for (const e of config.common_endpoints) parts.push(`\n- ${String(e.method ?? 'GET')} ${String(e.path ?? '')}: ${String(e.description ?? '')}`);
  }
  if (config.examples?.length) {
    parts.push('\n\nExamples:');
    for (const [i, e] of config.examples.entries()) {
      parts.push(`\n${i + 1}. ${String(e.description ?? `Example ${i + 1}`)}\n   Method: ${String(e.method ?? 'GET')}, Path: ${String(e.path ?? '')}`);
      if (e.json_data !== undefined) parts.push(`\n   Body: ${JSON.stringify(e.json_data)}`);
    }
  }
  return {
    name: config.id,
    description: parts.join(''),
    parameters: {
      type: 'object',
      properties: {
        method: { type: 'string', enum: executorMethods, default: 'GET', description: 'HTTP method' },
        path: { type: 'string', description: `request path, relative to ${config.base_url}` },
        json_data: { type: 'object', description: 'JSON body (POST, PUT, PATCH)' },
        headers_override: { type: 'object', description: 'headers merged over the base headers' },
      },
      required: ['path'],
    },
  };
}

/**
 * `${NAME}` in an executor's header, as strands-cli reads it: the env.secrets entry named NAME (its
 * `key` is the environment variable), else the environment variable NAME. Every value read is
 * registered with the redactor: a header's secret never reaches the log, even echoed by the server.
 */
function resolvePlaceholders(text: string, spec: WorkflowSpec, env: NodeJS.ProcessEnv): string {
  const keys = new Map((spec.env?.secrets ?? []).map((s) => [s.name ?? s.key, s.key]));
  return text.replace(/\$\{([^}]+)\}/g, (_match, name: string) => {
    const value = env[keys.get(name) ?? name] ?? '';
    secrets.register(value);
    return value;
  });
}

/** Every executor of the spec, its headers read from the environment now. */
export function readyExecutors(spec: WorkflowSpec, env: NodeJS.ProcessEnv): Map<string, HttpExecutor> {
  return new Map(
    [...executorsOf(spec).values()].map((config) => [
      config.id,
      {
        id: config.id,
        baseUrl: new URL(config.base_url),
        headers: Object.fromEntries(Object.entries(config.headers ?? {}).map(([name, value]) => [name, resolvePlaceholders(value, spec, env)])),
        timeoutMs: Math.min(config.timeout_ms ?? defaultTimeoutS * 1000, maxTimeoutS * 1000),
      },
    ]),
  );
}

/** The host an executor may reach (and be redirected within): its base URL's. */
export function executorHost(executor: HttpExecutor): string {
  return executor.baseUrl.host;
}

/** A call of an executor as a request: `path` under its base URL, never another host. */
export function executorRequest(executor: HttpExecutor, args: Record<string, unknown>): HttpRequestArgs & { method: string } {
  if (typeof args.path !== 'string' || args.path === '') throw new ToolInputError("'path' is required");
  const base = executor.baseUrl.href.endsWith('/') ? executor.baseUrl.href : `${executor.baseUrl.href}/`;
  const url = new URL(args.path.replace(/^\/+/, ''), base);
  if (url.origin !== executor.baseUrl.origin || !url.pathname.startsWith(executor.baseUrl.pathname)) {
    throw new ToolInputError(`path must stay under ${executor.baseUrl.href}`);
  }
  const method = (typeof args.method === 'string' ? args.method : 'GET').toUpperCase();
  if (!executorMethods.includes(method)) throw new ToolInputError(`method must be one of ${executorMethods.join(', ')}`);
  const override = args.headers_override !== null && typeof args.headers_override === 'object' ? (args.headers_override as Record<string, unknown>) : {};
  const headers = { ...executor.headers, ...Object.fromEntries(Object.entries(override).map(([k, v]) => [k, String(v)])) };
  const body = args.json_data === undefined || args.json_data === null ? undefined : JSON.stringify(args.json_data);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  return { url, method: method as HttpRequestArgs['method'], headers, body, timeoutMs: executor.timeoutMs };
}
