import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli.js';
import { hashFolder } from '../helpers/folder-hash.js';
import { openAiServerPerTest, type OpenAiTestServer } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const steps = 20;

/** A chain whose step k writes fk.txt through file_write, then answers; each step quotes the one before. */
function writeChain(runtime: string[]): string {
  return [
    'version: 0',
    'name: tool-replay',
    'runtime:',
    ...runtime,
    'agents:',
    '  worker: { prompt: "You write files.", tools: [file_read, file_write, grep] }',
    'pattern:',
    '  type: chain',
    '  config:',
    '    steps:',
    ...Array.from({ length: steps }, (_, k) => `      - { agent: worker, input: "Step ${k}: write f${k}.txt after {{ last_response }}", vars: { n: ${k} } }`),
    'outputs:',
    '  artifacts:',
    '    - path: ./out/report.md',
    '      from: "{% for s in steps %}{{ s.index }}: {{ s.response }}\\n{% endfor %}"',
    '',
  ].join('\n');
}

const scripted = (faults: string) =>
  writeChain([
    '  provider: scripted',
    '  scripted:',
    '    response_bytes: 200',
    '    responses:',
    '      worker: { tool_calls: [ { name: file_write, args: { path: "f{{ n }}.txt", content: "file {{ n }} after: {{ last_response }}" } } ], then: "step {{ n }} done" }',
    ...(faults ? ['    faults:', faults] : []),
  ]);

function workspace(spec: string) {
  const root = tempDir();
  const cwd = join(root, 'work');
  const home = join(root, 'home');
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(root, 'spec.yaml'), spec);
  return { cwd, home, spec: join(root, 'spec.yaml'), env: { ACODE_HOME: home, OPENAI_API_KEY: 'sk-test-key' } };
}

type Event = { type: string; step?: string; response?: string; call_id?: string; output?: string; usage?: { input: number; output: number } };

async function history(ws: ReturnType<typeof workspace>, id: string): Promise<Event[]> {
  const result = await runCli(['sessions', 'history', id, '--json'], ws);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Event[];
}

/** Each step's response, by step: what every later step and the artifacts are built from. */
const responses = (events: Event[]) => events.filter((e) => e.type === 'step_completed').map((e) => [e.step, e.response]);

/** What the model was told each tool call did, by call id (the last word on each). */
const toolResults = (events: Event[]) => Object.fromEntries(events.filter((e) => e.type === 'tool_result').map((e) => [e.call_id, e.output]));

async function finished(ws: ReturnType<typeof workspace>, run: Promise<{ code: number | null; stdout: string; stderr: string }>) {
  const result = await run;
  expect(result.code, result.stderr).toBe(0);
  const summary = JSON.parse(result.stdout) as { session_id: string; status: string; tokens: { input: number; output: number } };
  return { summary, events: await history(ws, summary.session_id), folder: hashFolder(ws.cwd) };
}

describe('a crash between a file write and the save of its round', () => {
  it('gives the model exactly the tool results of an uninterrupted run, and ends byte-identical', async () => {
    const clean = workspace(scripted(''));
    const expected = await finished(clean, runCli(['run', clean.spec, '--json'], clean));

    const ws = workspace(scripted('      - { step: 3, kind: crash, during: file_write }'));
    const killed = await runCli(['run', ws.spec, '--json'], ws);
    expect(killed.signal).toBe('SIGKILL');
    expect(readFileSync(join(ws.cwd, 'f3.txt'), 'utf8')).toMatch(/^file 3 after: /); // the write landed whole
    const resumed = await finished(ws, runCli(['resume', '--json'], ws));

    expect(resumed.summary.status).toBe('completed');
    expect(toolResults(resumed.events).call_3_0).toBe(toolResults(expected.events).call_3_0);
    expect(toolResults(resumed.events).call_3_0).toMatch(/^wrote f3\.txt \(\d+ bytes\)$/);
    expect(responses(resumed.events)).toEqual(responses(expected.events));
    expect(resumed.folder).toEqual(expected.folder);
    expect(readFileSync(join(ws.cwd, 'artifacts/out/report.md')).equals(readFileSync(join(clean.cwd, 'artifacts/out/report.md')))).toBe(true);
    // The model call answered before the crash is counted once, like every other.
    expect(resumed.summary.tokens).toEqual(expected.summary.tokens);
  });
});

const fixture = openAiServerPerTest();
let server: OpenAiTestServer;
let baseUrl: string;
beforeEach(() => ({ server, baseUrl } = fixture.current()));

/**
 * Step 2's first answer asks to write f2.txt and then to grep `docs/`, 500 files of 32 KB: every
 * file the grep reads is snapshotted and journaled (durable writes each), so the call runs long enough for the test to
 * kill the process after the write, with the round unsaved. One file holds the match, so the
 * answer does not depend on the order the folder is listed in.
 */
function grepWorkspace() {
  const ws = workspace(writeChain([`  provider: openai`, `  model_id: test-model`, `  host: ${baseUrl}`]));
  mkdirSync(join(ws.cwd, 'docs'));
  const hay = 'hay '.repeat(8192);
  for (let i = 0; i < 500; i++) writeFileSync(join(ws.cwd, 'docs', `f${i}.txt`), i === 123 ? 'a needle here\n' : `${hay}${i}\n`);
  server.handler = (r) => {
    const last = r.body.messages.at(-1) as { role: string };
    if (last.role === 'tool') return { kind: 'answer', text: `step ${r.step} done` };
    const calls: { id: string; name: string; args: Record<string, unknown> }[] = [{ id: `call_${r.step}_w`, name: 'file_write', args: { path: `f${r.step}.txt`, content: `file ${r.step}` } }];
    if (r.step === 2) calls.push({ id: 'call_2_r', name: 'grep', args: { pattern: 'needle', path: 'docs', context_lines: 0 } });
    return { kind: 'tool_calls', calls };
  };
  return ws;
}

async function eventsOnDisk(home: string): Promise<Event[]> {
  const sessions = join(home, 'sessions');
  const [id] = existsSync(sessions) ? (await import('node:fs')).readdirSync(sessions) : [];
  const log = id ? join(sessions, id, 'events.jsonl') : '';
  return log && existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Event) : [];
}

async function waitFor<T>(check: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 1000; i++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('a model answer with tool calls, killed before its round is saved', () => {
  it('is never sent again: the resume finishes the round from the journal', async () => {
    const clean = grepWorkspace();
    const expected = await finished(clean, runCli(['run', clean.spec, '--json'], clean));
    const cleanRequests = server.countByStep();
    server.requests.length = 0;

    const ws = grepWorkspace();
    const run = startCli(['run', ws.spec, '--json'], ws);
    await waitFor(async () => (await eventsOnDisk(ws.home)).find((e) => e.type === 'tool_called' && e.call_id === 'call_2_r'), 'the grep of docs/');
    run.child.kill('SIGKILL');
    expect((await run.done).signal).toBe('SIGKILL');
    const onDisk = await eventsOnDisk(ws.home);
    // Killed inside the grep: the write before it is journaled, the grep's result and the round's save are not.
    expect(onDisk.some((e) => e.type === 'tool_result' && e.call_id === 'call_2_w')).toBe(true);
    expect(onDisk.some((e) => e.type === 'tool_result' && e.call_id === 'call_2_r')).toBe(false);
    expect(server.countByStep()[2]).toBe(1);

    const resumed = await finished(ws, runCli(['resume', '--json'], ws));

    // Step 2's first answer was paid for once: the resume sent only the call after the tools.
    expect(server.countByStep()).toEqual(cleanRequests);
    expect(toolResults(resumed.events)).toEqual(toolResults(expected.events));
    expect(toolResults(resumed.events).call_2_r).toBe('docs/f123.txt:1: a needle here');
    expect(responses(resumed.events)).toEqual(responses(expected.events));
    expect(resumed.folder).toEqual(expected.folder);
    expect(resumed.summary.tokens).toEqual(expected.summary.tokens);
  });
});

describe('a server that repeats a tool call id (llama.cpp, vLLM and older Ollama may)', () => {
  it('runs every call and tells the model each one\'s own result', async () => {
    const ws = workspace(writeChain([`  provider: openai`, `  model_id: test-model`, `  host: ${baseUrl}`]));
    server.handler = (r) => {
      const last = r.body.messages.at(-1) as { role: string };
      if (last.role === 'tool') return { kind: 'answer', text: `step ${r.step} done` };
      return { kind: 'tool_calls', calls: [
        { id: 'call_0', name: 'file_write', args: { path: `a${r.step}.txt`, content: `a ${r.step}` } },
        { id: 'call_0', name: 'file_write', args: { path: `b${r.step}.txt`, content: `b ${r.step}` } },
      ] };
    };
    const { events } = await finished(ws, runCli(['run', ws.spec, '--json'], ws));
    for (let k = 0; k < steps; k++) {
      expect(readFileSync(join(ws.cwd, `a${k}.txt`), 'utf8')).toBe(`a ${k}`);
      expect(readFileSync(join(ws.cwd, `b${k}.txt`), 'utf8')).toBe(`b ${k}`);
    }
    const results = events.filter((e) => e.type === 'tool_result' && e.step === '1').map((e) => e.output);
    expect(results).toEqual(['wrote a0.txt (3 bytes)', 'wrote b0.txt (3 bytes)']);
    // What went back to the server: each tool message answers a call id of its own.
    const followUp = server.requests.find((r) => r.step === 0 && (r.body.messages.at(-1) as { role: string }).role === 'tool')!;
    const ids = (followUp.body.messages as { role: string; tool_call_id?: string }[]).filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
    expect(new Set(ids).size).toBe(2);
  });
});
