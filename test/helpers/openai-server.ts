import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LocalModelServer, serverPerTest } from './local-model-server.js';

export interface ChatRequest {
  body: { model: string; messages: { role: string; content: string }[]; temperature?: number; max_tokens?: number };
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
  | { kind: 'answer'; text?: string }
  | { kind: 'tool_calls'; calls: { id: string; name: string; args: Record<string, unknown> }[] }
  | { kind: 'error'; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'hang' };

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
    const completion = (message: Record<string, unknown>, finish_reason: string, usage: Record<string, number>) => ({
      id: `chatcmpl-${this.requests.length}`, object: 'chat.completion', created: 1, model: body.model, choices: [{ index: 0, message, finish_reason }], usage,
    });
    if (reply.kind === 'tool_calls') {
      const toolCalls = reply.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } }));
      return this.send(res, 200, completion({ role: 'assistant', content: null, tool_calls: toolCalls }, 'tool_calls', { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }));
    }
    const text = reply.text ?? answerFor(request.step, user);
    this.send(res, 200, completion({ role: 'assistant', content: text }, 'stop', { prompt_tokens: user.length, completion_tokens: text.length, total_tokens: user.length + text.length }));
  }
}

/** Starts a fresh server before each test of the file and stops it after; read it through `current()`. */
export function openAiServerPerTest(): { current(): { server: OpenAiTestServer; baseUrl: string }; restart(): Promise<void> } {
  return serverPerTest(() => new OpenAiTestServer());
}
