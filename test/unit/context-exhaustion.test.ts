import { beforeEach, describe, expect, it } from 'vitest';
import { executorFor } from '../helpers/engine-harness.js';
import { openAiServerPerTest, type ChatRequest, type OpenAiTestServer } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const fixture = openAiServerPerTest();
let server: OpenAiTestServer;
let baseUrl: string;
beforeEach(() => ({ server, baseUrl } = fixture.current()));

const spec = () => `version: 0
name: long
runtime: { provider: openai, model_id: m1, host: "${baseUrl}" }
agents:
  writer: { prompt: "You write." }
pattern:
  type: chain
  config:
    steps:
      - { agent: writer, input: "Step 0: write the long report" }
`;

const overflow = { kind: 'error', status: 400, body: { error: { message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens.", type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } } } as const;
const isSummaryRequest = (request: ChatRequest) => request.body.messages[0]?.content.startsWith('You summarize');

describe('a step whose conversation outgrows the context window (real HTTP, OpenAI protocol)', () => {
  it('continues in a new conversation seeded with the summary the model wrote', async () => {
    let stepCalls = 0;
    server.handler = (request) => {
      if (isSummaryRequest(request)) return { kind: 'answer', text: 'SUMMARY: outlined sections 1-3' };
      return ++stepCalls === 1 ? overflow : { kind: 'answer', text: 'the report' };
    };
    const { executor, journal } = executorFor(spec(), { cwd: tempDir() });
    expect((await executor.run()).status).toBe('completed');
    const retried = server.requests.at(-1)!;
    expect(retried.body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(retried.body.messages[1]!.content).toContain('Step 0: write the long report');
    expect(retried.body.messages[1]!.content).toContain('SUMMARY: outlined sections 1-3');
    expect(journal.events.find((e) => e.type === 'conversation_reset')).toMatchObject({ summary_source: 'model' });
    expect(journal.events.find((e) => e.type === 'resume_attempt')).toMatchObject({ stop_reason: 'context_exhausted', strategy: 'new_session' });
  });

  it('falls back to the latest part of the transcript when the summary request fails too', async () => {
    let stepCalls = 0;
    server.handler = (request) => {
      if (isSummaryRequest(request)) return overflow;
      return ++stepCalls === 1 ? overflow : { kind: 'answer', text: 'the report' };
    };
    const { executor, journal } = executorFor(spec(), { cwd: tempDir() });
    expect((await executor.run()).status).toBe('completed');
    expect(journal.events.find((e) => e.type === 'conversation_reset')).toMatchObject({ summary_source: 'truncation' });
    expect(server.requests.at(-1)!.body.messages[1]!.content).toContain('The latest part of the work so far');
  });

  it('pauses instead of looping when every fresh conversation overflows as well', async () => {
    server.handler = (request) => (isSummaryRequest(request) ? { kind: 'answer', text: 'SUMMARY' } : overflow);
    const { executor, journal } = executorFor(spec(), { cwd: tempDir(), autoResume: { enabled: true, maxAttempts: 2, onUnknown: 'retry' } });
    expect((await executor.run()).status).toBe('paused');
    expect(journal.events.filter((e) => e.type === 'conversation_reset')).toHaveLength(2);
    expect(journal.events.at(-1)).toMatchObject({ type: 'session_paused', reason: 'context_exhausted' });
  });
});
