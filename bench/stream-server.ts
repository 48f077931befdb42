import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the bench's model server answers: a stream of `pieces` text pieces `gapMs` apart, or (json) one answer after as long. */
export interface StreamPlan {
  pieces: number;
  /** Pieces of request `request`'s answer, where answers differ in length (else `pieces`). */
  piecesOf?(request: number): number;
  gapMs: number;
  /** Answer with one JSON body after as long as its pieces would take (pieces × gapMs), as a server that does not stream. */
  json: boolean;
  /** Piece `i` of the answer of request `request` (0-based). */
  piece(request: number, i: number): string;
}

/**
 * An OpenAI-compatible chat-completions server for the bench: it streams (SSE, as OpenAI does) or
 * answers whole, and notes when each piece was written (performance.now() of this process).
 */
export class StreamServer {
  private readonly server: Server;
  readonly sentAt = new Map<string, number>();
  private requests = 0;
  /** Told as each call arrives: its number, 0-based, counted across runs. */
  onCall: (request: number) => void = () => undefined;

  constructor(private readonly plan: () => StreamPlan) {
    this.server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const plan = this.plan();
        const request = this.requests++;
        this.onCall(request);
        const texts = Array.from({ length: plan.piecesOf?.(request) ?? plan.pieces }, (_, i) => plan.piece(request, i));
        if (plan.json) {
          const timer = setTimeout(() => {
            const content = texts.join('');
            res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: content.length } }));
          }, texts.length * plan.gapMs);
          res.on('close', () => clearTimeout(timer));
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        let i = 0;
        // Each piece at its own time from the start (a chain of gapMs timers would drift later under
        // load, making a streamed answer last longer than the whole one it is compared with).
        const start = performance.now();
        const send = () => {
          if (res.destroyed) return;
          if (i < texts.length) {
            const text = texts[i++]!;
            res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`);
            this.sentAt.set(text, performance.now());
            setTimeout(send, Math.max(0, start + i * plan.gapMs - performance.now()));
            return;
          }
          res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
          res.write(`data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 10, completion_tokens: texts.join('').length } })}\n\ndata: [DONE]\n\n`);
          res.end();
        };
        send();
      });
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
