import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { readEventStream } from '../source/providers/event-stream.js';
import { openResponse, type JsonPost } from '../source/providers/post-json.js';
import { median } from './median.js';
import { StreamServer } from './stream-server.js';

const bench = fileURLToPath(new URL('./bench.js', import.meta.url));

/** `node dist/bench.js sse-server <pieces> <gapMs>`: the bench's SSE server alone, its URL on stdout; it ends when stdin closes. */
export async function serveSse(pieces: number, gapMs: number): Promise<void> {
  const server = new StreamServer(() => ({ pieces, gapMs, json: false, piece: (r, i) => `w${r}x${i}${i % 12 === 11 ? '\n' : ' '}` }));
  console.log(await server.start());
  process.stdin.resume();
  process.stdin.on('end', () => void server.stop().then(() => process.exit(0)));
}

export interface SseReadFigures {
  pieces: number;
  gapMs: number;
  rounds: number;
  /** This process's CPU (user + system) per piece read, median over the rounds, in µs. */
  cpuPerPieceUs: number;
  /** Every round's figure, to show the spread. */
  perRoundUs: number[];
}

/**
 * What reading a streamed answer costs the reader: `pieces` SSE events `gapMs` apart (each its own
 * chunk on the wire) read through openResponse + readEventStream, from a server in a child process
 * so only the reading is on this process's CPU clock; `resting`: as an answer that shows is read
 * (the socket rests between reads, event-stream.ts), or as one nobody watches.
 */
export async function sseRead(pieces: number, gapMs: number, resting: boolean, rounds = 5): Promise<SseReadFigures> {
  const child = spawn(process.execPath, [bench, 'sse-server', String(pieces), String(gapMs)], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const first = await lines.next();
    if (first.done) throw new Error('the bench SSE server printed no URL');
    const url = `${first.value}/chat/completions`;
    const perRoundUs: number[] = [];
    // Round 0 warms the JIT and opens the connection; it is not counted.
    for (let round = 0; round <= rounds; round++) {
      const post: JsonPost = { url, headers: {}, body: { model: 'bench', messages: [], stream: true }, signal: new AbortController().signal, provider: 'openai', endpoint: url, unreachableHint: 'the bench server' };
      let events = 0;
      const before = process.cpuUsage();
      await readEventStream(await openResponse(post), post, () => void events++, { spoke: () => resting });
      const used = process.cpuUsage(before);
      if (events < pieces) throw new Error(`read ${events} events of the ${pieces} sent`);
      if (round > 0) perRoundUs.push((used.user + used.system) / pieces);
    }
    return { pieces, gapMs, rounds, cpuPerPieceUs: median(perRoundUs), perRoundUs };
  } finally {
    child.stdin.end();
    child.kill();
  }
}
