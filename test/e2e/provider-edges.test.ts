import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { chainSpec } from '../helpers/chain-spec.js';
import { cliPath, runCli } from '../helpers/cli.js';
import { openAiServerPerTest } from '../helpers/openai-server.js';
import { parseAllSessionFiles } from '../helpers/session-files.js';
import { tempDir } from '../helpers/temp-dir.js';

/** What model servers do at the edges of their protocol, found by a hostile campaign (helper-13) against loopback servers. */

const openai = openAiServerPerTest();

function workspace() {
  const cwd = tempDir();
  const home = join(cwd, 'home');
  writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps: 1, provider: 'openai', host: openai.current().baseUrl }));
  return { cwd, home, env: { ACODE_HOME: home, OPENAI_API_KEY: 'sk-edge-Q7vX2mLp9RzT4wKd8NfB' } };
}

describe('a rate limit that resets far away', () => {
  // FIXED: source/engine/resume-strategy.ts (longestRetryWaitMs): retry-after: 1e15 crashed the run with a stack trace (no date
  // that far); one past Node's longest timer (24.8 days) fired at once — six paid calls in 45 ms.
  it.each([
    ['1e15', /resets at a time too far to name/],
    ['3000000', /resets at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/],
    ['Wed, 21 Oct 2099 07:28:00 GMT', /resets at 2099-10-21T07:28:00Z/],
  ])('retry-after: %s pauses the session at once, saying when it resets', async (retryAfter, when) => {
    const ws = workspace();
    const { server } = openai.current();
    server.handler = () => ({ kind: 'error', status: 429, body: { error: { message: 'Rate limit reached', type: 'requests' } }, headers: { 'retry-after': retryAfter } });
    const result = await runCli(['run', 'spec.yaml'], ws);
    expect(result.code).toBe(1);
    expect(result.stderr).not.toMatch(/internal error|RangeError|TimeoutOverflowWarning/);
    expect(result.stderr).toMatch(when);
    expect(result.stderr).toContain('later than acode waits on its own (a day): resume then');
    expect(server.requests).toHaveLength(1);
    expect(parseAllSessionFiles(ws.home)[0]!.checkpoint).toMatchObject({ status: 'paused', stop_reason: 'rate_limit' });
  });
});

/** A model server of the test's own on 127.0.0.1, answering every model call with `answer`; its base URL and the calls it got. */
async function rawServer(answer: (res: ServerResponse) => void): Promise<{ baseUrl: string; calls: () => number; close: () => Promise<void> }> {
  let calls = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      // The run's model check before it starts (GET /models) finds no list, as on servers without one; only model calls count.
      if (req.method !== 'POST') return void res.writeHead(404).end();
      calls++;
      answer(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    calls: () => calls,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function rawWorkspace(baseUrl: string, steps = 1) {
  const cwd = tempDir();
  const home = join(cwd, 'home');
  writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps, provider: 'openai', host: baseUrl }));
  return { cwd, home, env: { ACODE_HOME: home, OPENAI_API_KEY: 'sk-edge-Q7vX2mLp9RzT4wKd8NfB' } };
}

const sseChunk = (delta: Record<string, unknown>, finish: string | null = null) => `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

describe('a stream that has said its last event', () => {
  // FIXED: source/providers/event-stream.ts (endGraceMs): a server that sent [DONE] and kept the connection open held the
  // finished answer unjournaled until it closed (20 s; at 5 minutes it was dropped and asked again, paid twice).
  it('is taken whole at [DONE], though the server keeps the connection open', async () => {
    const { server } = openai.current();
    server.handler = () => ({ kind: 'answer', keepOpen: true });
    const cwd = tempDir();
    const home = join(cwd, 'home');
    writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps: 3, provider: 'openai', host: openai.current().baseUrl }));
    const started = Date.now();
    const result = await runCli(['run', 'spec.yaml', '--json'], { cwd, env: { ACODE_HOME: home, OPENAI_API_KEY: 'sk-edge-Q7vX2mLp9RzT4wKd8NfB' } });
    expect(result.code, result.stderr).toBe(0);
    // Three answers, each ended at most a rest and a grace (~0.3 s) after its [DONE]: the connections stay open for ever.
    expect(Date.now() - started).toBeLessThan(6000);
    expect(server.requests).toHaveLength(3);
    expect(server.requests.every((r) => r.body.stream === true)).toBe(true);
    expect(parseAllSessionFiles(home)[0]!.checkpoint).toMatchObject({ status: 'completed', steps_done: 3 });
  });
});

describe('streamed tool calls', () => {
  // FIXED: source/providers/openai-stream.ts: servers that repeat a call's name in every fragment (MiniMax via NIM, Fireworks)
  // made it file_writefile_write…, an unknown tool; source/providers/openai-provider.ts: a key echoed in a call's id reached blobs/.
  it("take a name repeated in every fragment once, and lose the key from a call's id", async () => {
    const key = 'sk-edge-Q7vX2mLp9RzT4wKd8NfB';
    const { server } = openai.current();
    let round = 0;
    server.handler = () =>
      round++ === 0 ? { kind: 'tool_calls', nameEveryChunk: true, calls: [{ id: `call_${key}`, name: 'file_write', args: { path: 'out.txt', content: 'written once' } }] } : { kind: 'answer', text: 'done' };
    const cwd = tempDir();
    const home = join(cwd, 'home');
    writeFileSync(
      join(cwd, 'spec.yaml'),
      `version: 0
name: tool-names
runtime: { provider: openai, host: "${openai.current().baseUrl}", model_id: m }
agents:
  writer: { prompt: "You write files.", tools: [file_write] }
pattern:
  type: chain
  config:
    steps:
      - { agent: writer, input: "Step 0: write" }
`,
    );
    const result = await runCli(['run', 'spec.yaml', '--json'], { cwd, env: { ACODE_HOME: home, OPENAI_API_KEY: key } });
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(cwd, 'out.txt'), 'utf8')).toBe('written once');
    expect(result.stderr).not.toContain('unknown tool');
    // No 8 characters of the key anywhere in the home, blobs included.
    expect(grepHome(home, key.slice(8, 16))).toEqual([]);
  });
});

describe('answers a model server should not send', () => {
  // FIXED: source/providers/post-json.ts, event-stream.ts (maxAnswerBytes): an answer that never ended grew acode to 9 GB
  // (JSON) or crashed it with a stack trace (SSE).
  it.each(['json', 'sse'])('an endless %s answer is dropped at 64 MiB, clearly, and not asked again', async (kind) => {
    const piece = kind === 'sse' ? sseChunk({ content: 'x'.repeat(60_000) }) : ' '.repeat(64 * 1024);
    const raw = await rawServer((res) => {
      res.writeHead(200, { 'content-type': kind === 'sse' ? 'text/event-stream' : 'application/json' });
      if (kind === 'json') res.write('{"choices":[{"message":{"content":"');
      const pump = () => {
        while (!res.destroyed && res.write(piece));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    try {
      const ws = rawWorkspace(raw.baseUrl);
      const result = await runCli(['run', 'spec.yaml'], ws);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('sent an answer over 64 MiB without ending it; it was dropped');
      expect(result.stderr).not.toMatch(/internal error|RangeError/);
      expect(raw.calls()).toBe(1);
    } finally {
      await raw.close();
    }
  });

  // FIXED (issue 33): the limit on one event (16 Mi characters, event-stream.ts) was untested and named in bytes.
  it('a stream event over 16 Mi characters is dropped, naming the limit', async () => {
    const raw = await rawServer((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: {"choices":[{"index":0,"delta":{"content":"${'x'.repeat(17 * 1024 * 1024)}`);
    });
    try {
      const result = await runCli(['run', 'spec.yaml', '--no-auto-resume'], rawWorkspace(raw.baseUrl));
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('sent a stream event over 16 Mi characters long (the limit for one event); the answer was dropped');
      expect(result.stderr).not.toMatch(/internal error|RangeError/);
    } finally {
      await raw.close();
    }
  });

  // FIXED (issue 33): source/commands/stream-printer.ts held a line without a break whole: ~900 MB before the drop.
  it('--stream without a terminal prints an endless answer without breaks as it arrives, in bounded memory', async () => {
    const piece = sseChunk({ content: 'x'.repeat(64 * 1024) });
    const raw = await rawServer((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const pump = () => {
        while (!res.destroyed && res.write(piece));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    try {
      const ws = rawWorkspace(raw.baseUrl);
      const result = await runCli(['run', 'spec.yaml', '--stream'], { cwd: ws.cwd, env: { ...ws.env, NODE_OPTIONS: '--max-old-space-size=300' } });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('sent an answer over 64 MiB without ending it; it was dropped');
      expect(result.stderr).not.toMatch(/internal error|heap/);
      // Printed as it came: all but the last few KiB before the drop.
      expect(result.stdout.length).toBeGreaterThan(60 * 1024 * 1024);
    } finally {
      await raw.close();
    }
  });

  // FIXED: source/providers/post-json.ts (decompressed): a gzip-encoded body (sent although acode asks for identity) was
  // "not JSON" (mojibake printed and stored), or as a stream "ended before [DONE]" — retried five times, six answers paid for.
  it('a gzip-encoded JSON answer is read; a gzip-encoded stream is refused at once, saying why', async () => {
    const body = JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'unzipped answer' }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 2 } });
    const json = await rawServer((res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(body));
    });
    try {
      const ws = rawWorkspace(json.baseUrl);
      const result = await runCli(['run', 'spec.yaml', '--json'], ws);
      expect(result.code, result.stderr).toBe(0);
      expect(execFileSync(process.execPath, [cliPath, 'sessions', 'history', (JSON.parse(result.stdout) as { session_id: string }).session_id], { cwd: ws.cwd, env: { ...process.env, ...ws.env }, encoding: 'utf8' })).toContain('unzipped answer');
    } finally {
      await json.close();
    }
    // Over 64 MiB once unzipped: too long, as a plain one is — not retried.
    const huge = await rawServer((res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(Buffer.alloc(70 * 1024 * 1024, 32)));
    });
    try {
      const result = await runCli(['run', 'spec.yaml'], rawWorkspace(huge.baseUrl));
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('sent an answer over 64 MiB without ending it; it was dropped');
      expect(huge.calls()).toBe(1);
    } finally {
      await huge.close();
    }
    const sse = await rawServer((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
      res.end(gzipSync(`${sseChunk({ content: 'hi' })}${sseChunk({}, 'stop')}data: [DONE]\n\n`));
    });
    try {
      const result = await runCli(['run', 'spec.yaml'], rawWorkspace(sse.baseUrl));
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('streamed its answer gzip-encoded although acode asks for none');
      expect(sse.calls()).toBe(1);
    } finally {
      await sse.close();
    }
  });

  // FIXED: source/providers/declined.ts: a refusal (delta.refusal, finish_reason content_filter) was journaled as the step's
  // answer — empty — and handed to the next step as if answered.
  it.each([
    ['refusal', [sseChunk({ refusal: "I can't help with that." }), sseChunk({}, 'stop')], /declined to answer \(refusal\): "I can't help with that\."/],
    ['content_filter', [sseChunk({ content: '' }), sseChunk({}, 'content_filter')], /declined to answer \(content_filter\)/],
  ])('a %s pauses the session, saying what the model said, and is not retried', async (_name, events, said) => {
    const raw = await rawServer((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`${events.join('')}data: [DONE]\n\n`);
    });
    try {
      const ws = rawWorkspace(raw.baseUrl, 2);
      const result = await runCli(['run', 'spec.yaml'], ws);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(said);
      expect(raw.calls()).toBe(1);
      expect(parseAllSessionFiles(ws.home)[0]!.checkpoint).toMatchObject({ status: 'paused', steps_done: 0 });
    } finally {
      await raw.close();
    }
  });
});

/** Files under `home` holding `text` (grep -rl), none if no file does. */
function grepHome(home: string, text: string): string[] {
  try {
    return execFileSync('grep', ['-r', '-l', '-a', '-F', text, home], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
  } catch {
    return []; // grep exits 1 when nothing matches
  }
}

describe("a step whose own input overflows the model's context", () => {
  // FIXED: source/engine/session-executor.ts: a summary was asked for (and paid, its usage counted nowhere) before the
  // session paused — with nothing past the step's input to summarize, it could not have helped.
  it('pauses without asking the model for a summary', async () => {
    const ws = workspace();
    const { server } = openai.current();
    server.handler = () => ({ kind: 'error', status: 400, body: { error: { message: "This model's maximum context length is 8 tokens.", type: 'invalid_request_error', code: 'context_length_exceeded' } } });
    const result = await runCli(['run', 'spec.yaml'], ws);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("the step's own input does not fit the model's context");
    expect(server.requests).toHaveLength(1);
  });
});

describe('the key as the environment holds it', () => {
  it('an API key whose value ends in a newline (a secret file put in the environment) is sent without it, as fetch sent it: the run completes', async () => {
    const { server, baseUrl } = openai.current();
    const cwd = tempDir();
    writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps: 1, provider: 'openai', host: baseUrl }));
    // `kubectl create secret --from-file`, `KEY=$(cat file)` in some shells, a key file saved on
    // Windows: the value ends in "\n" or "\r\n". fetch trimmed header values (the Fetch standard's
    // normalize); node:http refuses the header (ERR_INVALID_CHAR) before anything is sent, and acode
    // reports it as "cannot reach … check runtime.host and that the server is running", retryable.
    const result = await runCli(['run', 'spec.yaml', '--no-auto-resume'], { cwd, env: { ACODE_HOME: join(cwd, 'home'), OPENAI_API_KEY: 'sk-test-review-0123456789abcdef\n' } });
    expect(result.stderr).not.toContain('ERR_INVALID_CHAR');
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-test-review-0123456789abcdef');
  });
});
