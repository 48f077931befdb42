import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LocalModelServer, pieces, serverPerTest, sse } from './local-model-server.js';

export interface ChatRequest {
  body: { model: string; messages: { role: string; content: string }[]; temperature?: number; max_tokens?: number; stream?: boolean; stream_options?: { include_usage?: boolean } };
  headers: IncomingMessage['headers'];
  /** The chain step the request is for: "Step N" in the last user message (0-based N). */
  step: number;
  /** The last user message and the system prompt as sent: tests of other patterns tell steps apart by them. */
  user: string;
  system: string;
  /** When the request arrived (ms since the epoch, this machine's clock, as event timestamps are). */
  at: number;
}

/** What the handler wants done with a request: answer, fail with a status, or never answer. */
export type Reply =
  /** `keepOpen`, streamed: after [DONE] the response is never ended (the connection stays open); `finish`: its finish_reason (`stop`). */
  | { kind: 'answer'; text?: string; keepOpen?: boolean; finish?: string }
  /** `nameEveryChunk`, streamed: every fragment of a call repeats its name, as some servers send it. */
  | { kind: 'tool_calls'; calls: { id: string; name: string; args: Record<string, unknown>; /** The arguments as sent, where not JSON.stringify(args). */ rawArgs?: string }[]; nameEveryChunk?: boolean }
  | { kind: 'error'; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'hang' }
  /** Streamed requests: `after` pieces of the answer, then the connection breaks (`reset`), the stream ends without [DONE] (`end`) or stays open (`hang`). */
  | { kind: 'cut'; text?: string; after: number; how?: 'reset' | 'end' | 'hang' }
  /** Streamed requests: `after` pieces of the answer, then an error object in a chunk (as vLLM and proxies send). */
  | { kind: 'stream_error'; text?: string; after: number; error: unknown };

/** Deterministic answer for a step's input, so two runs can be compared byte for byte. */
export function answerFor(step: number, input: string): string {
  return `answer ${step}: ${createHash('sha256').update(input).digest('hex').slice(0, 16)}`;
}

/**
 * A real OpenAI-compatible chat-completions server on 127.0.0.1, speaking the wire protocol:
 * JSON body in, `choices[0].message.content` and `usage` out, OpenAI-shaped errors.
 */
export class OpenAiTestServer extends LocalModelServer<ChatRequest> {
  handler: (request: ChatRequest) => Reply = () => ({ kind: 'answer' });
  /** How long each answer takes, so several steps are in flight at once (the request is recorded at once). */
  latencyMs = 0;
  /** Requests received and not answered yet: model calls in flight. */
  pending = 0;
  protected readonly basePath = '/v1';
  /** What `GET /v1/models` lists; undefined: the server has no such endpoint (404), as some do not. */
  models: string[] | undefined;
  /** Headers of each `GET /v1/models` (not counted in `requests`, which are model calls). */
  readonly modelListRequests: IncomingMessage['headers'][] = [];
  /** Streamed answers: the pause between two events, and how many characters of text each carries. */
  streamDelayMs = 0;
  streamPieceChars = 8;
  /** Told of each streamed event as it is written (the benchmark's clock). */
  onStreamEvent?: (event: string, at: number) => void;

  countByStep(): Record<number, number> {
    const counts: Record<number, number> = {};
    for (const r of this.requests) counts[r.step] = (counts[r.step] ?? 0) + 1;
    return counts;
  }

  protected handle(req: IncomingMessage, res: ServerResponse, raw: string): void {
    if (req.method === 'GET' && req.url === '/v1/models' && this.models) {
      this.modelListRequests.push(req.headers);
      return this.send(res, 200, { object: 'list', data: this.models.map((id) => ({ id, object: 'model', created: 1, owned_by: 'library' })) });
    }
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return this.send(res, 404, { error: { message: `no route ${req.url}` } });
    const body = JSON.parse(raw) as ChatRequest['body'];
    const user = body.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
    const system = body.messages.find((m) => m.role === 'system')?.content ?? '';
    // Tool-call rounds repeat the step's messages: the step is the one its user message names.
    const request: ChatRequest = { body, headers: req.headers, step: Number(/Step (\d+)/.exec(user)?.[1] ?? -1), user, system, at: Date.now() };
    this.record(request);
    this.pending++;
    const answer = () => {
      this.pending--;
      this.reply(request, res);
    };
    if (this.latencyMs > 0) setTimeout(answer, this.latencyMs);
    else answer();
  }

  private reply(request: ChatRequest, res: ServerResponse): void {
    // The client may be gone (a killed process): nothing to answer.
    if (res.destroyed) return;
    const { body } = request;
    const user = request.user;
    const reply = this.handler(request);
    if (reply.kind === 'hang') return this.hang(res);
    if (reply.kind === 'error') return this.send(res, reply.status, reply.body, reply.headers);
    if (body.stream) return this.stream(request, reply, res);
    if (reply.kind === 'cut') return void res.destroy();
    if (reply.kind === 'stream_error') return this.send(res, 500, reply.error);
    const completion = (message: Record<string, unknown>, finish_reason: string, usage: Record<string, number>) => ({
      id: `chatcmpl-${this.requests.length}`, object: 'chat.completion', created: 1, model: body.model, choices: [{ index: 0, message, finish_reason }], usage,
    });
    if (reply.kind === 'tool_calls') {
      const toolCalls = reply.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.rawArgs ?? JSON.stringify(c.args) } }));
      return this.send(res, 200, completion({ role: 'assistant', content: null, tool_calls: toolCalls }, 'tool_calls', { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }));
    }
    const text = reply.text ?? answerFor(request.step, user);
    this.send(res, 200, completion({ role: 'assistant', content: text }, (reply.kind === 'answer' && reply.finish) || 'stop', { prompt_tokens: user.length, completion_tokens: text.length, total_tokens: user.length + text.length }));
  }

  /** The answer as OpenAI streams it: chat.completion.chunk events, a usage chunk when asked for, then [DONE]. */
  private stream(request: ChatRequest, reply: Exclude<Reply, { kind: 'hang' | 'error' }>, res: ServerResponse): void {
    const chunk = (delta: Record<string, unknown>, finish_reason: string | null = null) =>
      sse({ id: `chatcmpl-${this.requests.length}`, object: 'chat.completion.chunk', created: 1, model: request.body.model, choices: [{ index: 0, delta, finish_reason }] });
    const usage = (prompt: number, completion: number) =>
      request.body.stream_options?.include_usage ? [sse({ id: `chatcmpl-${this.requests.length}`, object: 'chat.completion.chunk', created: 1, model: request.body.model, choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } })] : [];
    if (reply.kind === 'tool_calls') {
      const events = [chunk({ role: 'assistant', content: null })];
      reply.calls.forEach((c, index) => {
        events.push(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }));
        for (const part of pieces(c.rawArgs ?? JSON.stringify(c.args), this.streamPieceChars)) events.push(chunk({ tool_calls: [{ index, function: { ...(reply.nameEveryChunk ? { name: c.name } : {}), arguments: part } }] }));
      });
      return this.streamEvents(res, [...events, chunk({}, 'tool_calls'), ...usage(10, 5), sse('[DONE]')], this.streamDelayMs, 'end', this.onStreamEvent);
    }
    const text = reply.text ?? answerFor(request.step, request.user);
    const parts = pieces(text, this.streamPieceChars).map((part) => chunk({ content: part }));
    const start = [chunk({ role: 'assistant', content: '' })];
    if (reply.kind === 'cut') return this.streamEvents(res, [...start, ...parts.slice(0, reply.after)], this.streamDelayMs, reply.how ?? 'reset', this.onStreamEvent);
    if (reply.kind === 'stream_error') return this.streamEvents(res, [...start, ...parts.slice(0, reply.after), sse(reply.error)], this.streamDelayMs, 'end', this.onStreamEvent);
    this.streamEvents(res, [...start, ...parts, chunk({}, (reply.kind === 'answer' && reply.finish) || 'stop'), ...usage(request.user.length, text.length), sse('[DONE]')], this.streamDelayMs, reply.kind === 'answer' && reply.keepOpen ? 'hang' : 'end', this.onStreamEvent);
  }
}

/** Starts a fresh server before each test of the file and stops it after; read it through `current()`. */
export function openAiServerPerTest(): { current(): { server: OpenAiTestServer; baseUrl: string }; restart(): Promise<void> } {
  return serverPerTest(() => new OpenAiTestServer());
}
