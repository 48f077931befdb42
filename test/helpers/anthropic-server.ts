import type { IncomingMessage, ServerResponse } from 'node:http';
import { LocalModelServer, pieces, serverPerTest, sse } from './local-model-server.js';
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
    stream?: boolean;
  };
  headers: IncomingMessage['headers'];
  /** The chain step the request is for: "Step N" in the last plain user message (0-based N). */
  step: number;
}

type Usage = { input_tokens: number; output_tokens: number; cache_creation_input_tokens?: number; cache_read_input_tokens?: number };

/** What the handler wants done with a request: answer, fail with a status, or never answer. */
export type AnthropicReply =
  /** `stop`: its stop_reason (`end_turn`). */
  | { kind: 'answer'; text?: string; usage?: Usage; stop?: string }
  | { kind: 'tool_use'; text?: string; calls: { id: string; name: string; input: Record<string, unknown> }[] }
  | { kind: 'error'; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'hang' }
  /** Streamed requests: `after` text deltas, then the connection breaks (`reset`) or the stream ends before message_stop (`end`). */
  | { kind: 'cut'; text?: string; after: number; how?: 'reset' | 'end' }
  /** Streamed requests: `after` text deltas, then an `error` event (overloaded_error, api_error …). */
  | { kind: 'stream_error'; text?: string; after: number; error: unknown };

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
  /** Streamed answers: the pause between two events, and how many characters each text delta carries. */
  streamDelayMs = 0;
  streamPieceChars = 8;

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
    if (body.stream) return this.stream(request, reply, user ?? '', res);
    if (reply.kind === 'cut') return void res.destroy();
    if (reply.kind === 'stream_error') return this.send(res, 500, reply.error);
    const message = (content: Block[], stop_reason: string, usage: Usage) => ({ id: `msg_${this.requests.length}`, type: 'message', role: 'assistant', model: body.model, content, stop_reason, stop_sequence: null, usage });
    if (reply.kind === 'tool_use') {
      const uses = reply.calls.map((c): Block => ({ type: 'tool_use', id: c.id, name: c.name, input: c.input }));
      return this.send(res, 200, message([...(reply.text ? [{ type: 'text' as const, text: reply.text }] : []), ...uses], 'tool_use', { input_tokens: 10, output_tokens: 5 }));
    }
    const text = reply.text ?? answerFor(request.step, user ?? '');
    this.send(res, 200, message([{ type: 'text', text }], (reply.kind === 'answer' && reply.stop) || 'end_turn', reply.usage ?? { input_tokens: (user ?? '').length, output_tokens: text.length }));
  }

  /** The answer as the Messages API streams it: message_start, content blocks and their deltas, message_delta, message_stop. */
  private stream(request: MessagesRequest, reply: Exclude<AnthropicReply, { kind: 'hang' | 'error' }>, user: string, res: ServerResponse): void {
    const usage: Usage = reply.kind === 'answer' && reply.usage ? reply.usage : reply.kind === 'tool_use' ? { input_tokens: 10, output_tokens: 5 } : { input_tokens: user.length, output_tokens: 0 };
    const start = [
      sse({ type: 'message_start', message: { id: `msg_${this.requests.length}`, type: 'message', role: 'assistant', model: request.body.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } }, 'message_start'),
      sse({ type: 'ping' }, 'ping'),
    ];
    const textBlock = (index: number, text: string) => [
      sse({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }, 'content_block_start'),
      ...pieces(text, this.streamPieceChars).map((part) => sse({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: part } }, 'content_block_delta')),
      sse({ type: 'content_block_stop', index }, 'content_block_stop'),
    ];
    const end = (stop_reason: string, output: number) => [
      sse({ type: 'message_delta', delta: { stop_reason, stop_sequence: null }, usage: { output_tokens: output } }, 'message_delta'),
      sse({ type: 'message_stop' }, 'message_stop'),
    ];
    if (reply.kind === 'tool_use') {
      const blocks = reply.text ? textBlock(0, reply.text) : [];
      const offset = reply.text ? 1 : 0;
      reply.calls.forEach((c, i) => {
        blocks.push(sse({ type: 'content_block_start', index: offset + i, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } }, 'content_block_start'));
        for (const part of pieces(JSON.stringify(c.input), this.streamPieceChars)) blocks.push(sse({ type: 'content_block_delta', index: offset + i, delta: { type: 'input_json_delta', partial_json: part } }, 'content_block_delta'));
        blocks.push(sse({ type: 'content_block_stop', index: offset + i }, 'content_block_stop'));
      });
      return this.streamEvents(res, [...start, ...blocks, ...end('tool_use', usage.output_tokens)], this.streamDelayMs);
    }
    const text = reply.text ?? answerFor(request.step, user);
    const block = textBlock(0, text);
    // The block's start, then `after` deltas.
    const partial = block.slice(0, 1 + (reply.kind === 'answer' ? 0 : reply.after));
    if (reply.kind === 'cut') return this.streamEvents(res, [...start, ...partial], this.streamDelayMs, reply.how ?? 'reset');
    if (reply.kind === 'stream_error') return this.streamEvents(res, [...start, ...partial, sse(reply.error, 'error')], this.streamDelayMs);
    this.streamEvents(res, [...start, ...block, ...end((reply.kind === 'answer' && reply.stop) || 'end_turn', reply.usage?.output_tokens ?? text.length)], this.streamDelayMs);
  }
}

/** Starts a fresh server before each test of the file and stops it after; read it through `current()`. */
export function anthropicServerPerTest(): { current(): { server: AnthropicTestServer; baseUrl: string }; restart(): Promise<void> } {
  return serverPerTest(() => new AnthropicTestServer());
}
