import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { executorFor } from '../helpers/engine-harness.js';
import { openAiServerPerTest, type ChatRequest, type OpenAiTestServer, type Reply } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const fixture = openAiServerPerTest();
let server: OpenAiTestServer;
let baseUrl: string;
beforeEach(() => ({ server, baseUrl } = fixture.current()));

const spec = () => `version: 0
name: long
runtime: { provider: openai, model_id: m1, host: "${baseUrl}" }
agents:
  writer: { prompt: "You write.", tools: [file_read] }
pattern:
  type: chain
  config:
    steps:
      - { agent: writer, input: "Step 0: write the long report" }
`;

const overflow: Reply = { kind: 'error', status: 400, body: { error: { message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens.", type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } } };
const isSummaryRequest = (request: ChatRequest) => request.body.messages[0]?.content.startsWith('You summarize') === true;

/** The agent reads a file (round 1); its next call overflows; `fresh` answers the conversation after the reset. */
function serve(summary: (request: ChatRequest) => Reply, fresh: Reply = { kind: 'answer', text: 'the report' }) {
  let stepCalls = 0;
  server.handler = (request) => {
    if (isSummaryRequest(request)) return summary(request);
    stepCalls++;
    if (stepCalls === 1) return { kind: 'tool_calls', calls: [{ id: 'call_1', name: 'file_read', args: { path: 'notes.md' } }] };
    return stepCalls === 2 ? overflow : fresh;
  };
}

function workspace() {
  const cwd = tempDir();
  writeFileSync(join(cwd, 'notes.md'), `a long file ${'of notes '.repeat(2000)}`);
  return cwd;
}

describe('a step whose conversation outgrows the context window (real HTTP, OpenAI protocol)', () => {
  it('continues in a new conversation seeded with the summary the model wrote', async () => {
    serve(() => ({ kind: 'answer', text: 'SUMMARY: outlined sections 1-3' }));
    const { executor, journal } = executorFor(spec(), { cwd: workspace() });
    expect((await executor.run()).status).toBe('completed');
    const summaryRequest = server.requests.find(isSummaryRequest)!;
    expect(summaryRequest.body.messages[1]!.content).toContain('[tool file_read result] a long file');
    const retried = server.requests.at(-1)!;
    expect(retried.body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(retried.body.messages[1]!.content).toContain('Step 0: write the long report');
    expect(retried.body.messages[1]!.content).toContain('SUMMARY: outlined sections 1-3');
    expect(journal.events.find((e) => e.type === 'conversation_reset')).toMatchObject({ summary_source: 'model', dropped_messages: 4 });
    expect(journal.events.find((e) => e.type === 'resume_attempt')).toMatchObject({ stop_reason: 'context_exhausted', strategy: 'new_session' });
  });

  it('falls back to the latest part of the transcript when the summary request fails too', async () => {
    serve(() => overflow);
    const { executor, journal } = executorFor(spec(), { cwd: workspace() });
    expect((await executor.run()).status).toBe('completed');
    expect(journal.events.find((e) => e.type === 'conversation_reset')).toMatchObject({ summary_source: 'truncation' });
    expect(server.requests.at(-1)!.body.messages[1]!.content).toContain('The latest part of the work so far');
  });

  it('pauses instead of looping when every fresh conversation overflows as well', async () => {
    serve(() => ({ kind: 'answer', text: 'SUMMARY' }), overflow);
    const { executor, journal } = executorFor(spec(), { cwd: workspace() });
    expect((await executor.run()).status).toBe('paused');
    expect(journal.events.filter((e) => e.type === 'conversation_reset')).toHaveLength(1);
    expect(journal.events.at(-1)).toMatchObject({ type: 'session_paused', reason: 'context_exhausted' });
  });

  it('keeps the old conversation when stopped while the summary is written', async () => {
    serve(() => ({ kind: 'hang' }));
    const { executor, journal } = executorFor(spec(), { cwd: workspace() });
    const done = executor.run();
    await server.waitFor(isSummaryRequest);
    executor.cancel();
    expect((await done).status).toBe('paused');
    expect(journal.events.filter((e) => e.type === 'conversation_reset')).toHaveLength(0);
    expect(journal.events.at(-1)).toMatchObject({ type: 'session_paused', reason: 'user_exit' });
    expect(journal.events.filter((e) => e.type === 'conversation_saved').at(-1)).toMatchObject({ messages: 4 });
  });
});
