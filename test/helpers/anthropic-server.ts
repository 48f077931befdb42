import type { IncomingMessage, ServerResponse } from 'node:http';
import { LocalModelServer, serverPerTest } from './local-model-server.js';
import { answerFor } from './openai-server.js';

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> } | { type: 'tool_result'; tool_use_id: string; content: string };

export interface MessagesRequest {
  body: {
    model: string;
    max_tokens: number;
    system?: string;
    messages: { role: 'user' | 'assistant'; content: string | Block[] }[];
    temperature?: number;
    top_p?: number;
    tools?: { name: string; description: string; input_schema: Record<string, unknown> }[];
  };
  headers: IncomingMessage['headers'];
  /** The chain step the request is for: "Step N" in the last plain user message (0-based N). */
  step: number;
}

type Usage = { input_tokens: number; output_tokens: number; cache_creation_input_tokens?: number; cache_read_input_tokens?: number };

/** What the handler wants done with a request: answer, fail with a status, or never answer. */
export type AnthropicReply =
  | { kind: 'answer'; text?: string; usage?: Usage }
  | { kind: 'tool_use'; text?: string; calls: { id: string; name: string; input: Record<string, unknown> }[] }
  | { kind: 'error'; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'hang' };

/** Anthropic's error envelope: `{"type":"error","error":{"type":…,"message":…}}`. */
export function anthropicError(type: string, message: string): unknown {
  return { type: 'error', error: { type, message } };
}

/**
 * A real Anthropic Messages API server on 127.0.0.1: POST /v1/messages with JSON in, content
 * blocks, stop_reason and usage out, Anthropic-shaped errors. It checks the version header as the
 * real API does.
 */
export class AnthropicTestServer extends LocalModelServer<MessagesRequest> {
  handler: (request: MessagesRequest) => AnthropicReply = () => ({ kind: 'answer' });
  /** The base URL is the bare origin, as runtime.host and ANTHROPIC_BASE_URL are written. */
  protected readonly basePath = '';
  /** Models `GET /v1/models/{id}` knows (an alias maps to its dated id); undefined: every model is known. */
  models: Record<string, string> | undefined;
  /** Headers of each `GET /v1/models/…` (not counted in `requests`, which are model calls). */
  readonly modelRequests: IncomingMessage['headers'][] = [];

  protected handle(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const model = req.method === 'GET' ? /^\/v1\/models\/([^/?]+)$/.exec(req.url ?? '')?.[1] : undefined;
    if (model !== undefined) {
      this.modelRequests.push(req.headers);
      if (!req.headers['anthropic-version']) return this.send(res, 400, anthropicError('invalid_request_error', 'anthropic-version: header is required'));
      const asked = decodeURIComponent(model);
      const id = this.models ? this.models[asked] : asked;
      if (id === undefined) return this.send(res, 404, anthropicError('not_found_error', `model: ${asked}`));
      return this.send(res, 200, { type: 'model', id, display_name: id, created_at: '2025-01-01T00:00:00Z' });
    }
    if (req.method !== 'POST' || req.url !== '/v1/messages') return this.send(res, 404, anthropicError('not_found_error', `Not found: ${req.url}`));
    if (!req.headers['anthropic-version']) return this.send(res, 400, anthropicError('invalid_request_error', 'anthropic-version: header is required'));
    const body = JSON.parse(raw) as MessagesRequest['body'];
    const user = body.messages.filter((m) => m.role === 'user' && typeof m.content === 'string').at(-1)?.content as string | undefined;
    const request: MessagesRequest = { body, headers: req.headers, step: Number(/Step (\d+)/.exec(user ?? '')?.[1] ?? -1) };
    this.record(request);
    const reply = this.handler(request);
    if (reply.kind === 'hang') return this.hang(res);
    if (reply.kind === 'error') return this.send(res, reply.status, reply.body, reply.headers);
    const message = (content: Block[], stop_reason: string, usage: Usage) => ({ id: `msg_${this.requests.length}`, type: 'message', role: 'assistant', model: body.model, content, stop_reason, stop_sequence: null, usage });
    if (reply.kind === 'tool_use') {
      const uses = reply.calls.map((c): Block => ({ type: 'tool_use', id: c.id, name: c.name, input: c.input }));
      return this.send(res, 200, message([...(reply.text ? [{ type: 'text' as const, text: reply.text }] : []), ...uses], 'tool_use', { input_tokens: 10, output_tokens: 5 }));
    }
    const text = reply.text ?? answerFor(request.step, user ?? '');
    this.send(res, 200, message([{ type: 'text', text }], 'end_turn', reply.usage ?? { input_tokens: (user ?? '').length, output_tokens: text.length }));
  }
}

/** Starts a fresh server before each test of the file and stops it after; read it through `current()`. */
export function anthropicServerPerTest(): { current(): { server: AnthropicTestServer; baseUrl: string }; restart(): Promise<void> } {
  return serverPerTest(() => new AnthropicTestServer());
}
