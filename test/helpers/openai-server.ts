import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach } from 'vitest';

export interface ChatRequest {
  body: { model: string; messages: { role: string; content: string }[]; temperature?: number; max_tokens?: number };
  headers: IncomingMessage['headers'];
  /** The chain step the request is for: "Step N" in the last user message (0-based N). */
  step: number;
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
export class OpenAiTestServer {
  readonly requests: ChatRequest[] = [];
  handler: (request: ChatRequest) => Reply = () => ({ kind: 'answer' });
  private readonly server: Server;
  private readonly waiters: { predicate: (r: ChatRequest) => boolean; resolve: (r: ChatRequest) => void }[] = [];
  private readonly hanging = new Set<ServerResponse>();

  constructor() {
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Resolves when a request matching `predicate` arrives (already arrived ones count). */
  waitFor(predicate: (r: ChatRequest) => boolean): Promise<ChatRequest> {
    const seen = this.requests.find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ predicate, resolve }));
  }

  countByStep(): Record<number, number> {
    const counts: Record<number, number> = {};
    for (const r of this.requests) counts[r.step] = (counts[r.step] ?? 0) + 1;
    return counts;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of req) raw += String(chunk);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
      return;
    }
    const body = JSON.parse(raw) as ChatRequest['body'];
    const user = body.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
    // Tool-call rounds repeat the step's messages: the step is the one its user message names.
    const request: ChatRequest = { body, headers: req.headers, step: Number(/Step (\d+)/.exec(user)?.[1] ?? -1) };
    this.requests.push(request);
    for (const waiter of this.waiters.splice(0)) {
      if (waiter.predicate(request)) waiter.resolve(request);
      else this.waiters.push(waiter);
    }
    const reply = this.handler(request);
    if (reply.kind === 'hang') {
      this.hanging.add(res);
      return;
    }
    if (reply.kind === 'error') {
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(JSON.stringify(reply.body));
      return;
    }
    if (reply.kind === 'tool_calls') {
      const toolCalls = reply.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `chatcmpl-${this.requests.length}`,
          object: 'chat.completion',
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: toolCalls }, finish_reason: 'tool_calls' }],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        }),
      );
      return;
    }
    const text = reply.text ?? answerFor(request.step, user);
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: `chatcmpl-${this.requests.length}`,
        object: 'chat.completion',
        created: 1,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        usage: { prompt_tokens: user.length, completion_tokens: text.length, total_tokens: user.length + text.length },
      }),
    );
  }
}

/** Starts a fresh server before each test of the file and stops it after; read it through `current()`. */
export function openAiServerPerTest(): { current(): { server: OpenAiTestServer; baseUrl: string }; restart(): Promise<void> } {
  let server: OpenAiTestServer;
  let baseUrl: string;
  const start = async () => {
    server = new OpenAiTestServer();
    baseUrl = await server.start();
  };
  beforeEach(start);
  afterEach(async () => server.stop());
  return { current: () => ({ server, baseUrl }), restart: start };
}
