import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { messagesToSummarize } from '../../source/engine/compaction.js';
import { checkRunModels } from '../../source/session/model-check.js';
import { loadSpecText } from '../../source/spec/load-spec.js';
import type { ChatMessage } from '../../source/engine/provider.js';
import { executorFor, MemoryJournal, replayed } from '../helpers/engine-harness.js';
import { openAiServerPerTest, type ChatRequest, type OpenAiTestServer } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * context_policy.compaction: a step's conversation past when_tokens_over is summarized before the
 * next model call, with the summary machinery of a context overflow (real HTTP, OpenAI protocol).
 */

const fixture = openAiServerPerTest();
let server: OpenAiTestServer;
let baseUrl: string;
beforeEach(() => ({ server, baseUrl } = fixture.current()));

const spec = (compaction: string) => `version: 0
name: long
runtime: { provider: openai, model_id: m1, host: "${baseUrl}" }
context_policy:
  compaction: ${compaction}
agents:
  reader: { prompt: "You read.", tools: [file_read] }
pattern:
  type: chain
  config:
    steps:
      - { agent: reader, input: "Step 0: read both files" }
`;

const isSummaryRequest = (request: ChatRequest) => request.body.messages[0]?.content.startsWith('You summarize') === true;
const stepCalls = () => server.requests.filter((r) => !isSummaryRequest(r));

/** Round 1 reads big.md (about 2,000 tokens), round 2 small.md, round 3 answers; summaries say SUMMARY. */
function serve() {
  let calls = 0;
  server.handler = (request) => {
    if (isSummaryRequest(request)) return { kind: 'answer', text: 'SUMMARY: big.md holds notes' };
    calls++;
    if (calls === 1) return { kind: 'tool_calls', calls: [{ id: 'call_1', name: 'file_read', args: { path: 'big.md' } }] };
    if (calls === 2) return { kind: 'tool_calls', calls: [{ id: 'call_2', name: 'file_read', args: { path: 'small.md' } }] };
    return { kind: 'answer', text: 'read them' };
  };
}

function workspace() {
  const cwd = tempDir();
  writeFileSync(join(cwd, 'big.md'), `big notes ${'of many words '.repeat(600)}`);
  writeFileSync(join(cwd, 'small.md'), 'small notes');
  return cwd;
}

const message = (role: 'assistant' | 'tool' | 'user', n: number): ChatMessage =>
  role === 'tool' ? { role, tool_call_id: `c${n}`, name: 'file_read', content: `r${n}` } : { role, content: `m${n}` };

describe('context_policy.compaction', () => {
  it("summarizes summary_ratio of the messages after the step's input, keeps the newest, and never keeps a tool result without its call", () => {
    const start: ChatMessage[] = [{ role: 'system', content: 's' }, message('user', 0)];
    const later = Array.from({ length: 10 }, (_, i) => message(i % 2 === 0 ? 'assistant' : 'tool', i));
    expect(messagesToSummarize([...start, ...later], 0.35, 4)).toBe(4); // 3, moved past the tool result at 3
    expect(messagesToSummarize([...start, ...later], 0.5, 8)).toBe(2); // 8 newest kept
    expect(messagesToSummarize([...start, ...later], 0.35, 12)).toBe(4); // too few to keep 12: the ratio decides
    expect(messagesToSummarize([...start, message('assistant', 1)], 0.5, 1)).toBe(0); // one message: nothing to gain
  });

  it('summarizes the conversation before the call that would pass when_tokens_over, and goes on with the summary', async () => {
    serve();
    const { executor, journal } = executorFor(spec('{ when_tokens_over: 1000 }'), { cwd: workspace() });
    expect((await executor.run()).status).toBe('completed');
    expect(server.requests.filter(isSummaryRequest)).toHaveLength(1);
    expect(server.requests.find(isSummaryRequest)!.body.messages[1]!.content).toContain('[tool file_read result] big notes');
    const [, second, third] = stepCalls();
    expect(second!.body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(second!.body.messages[1]!.content).toContain('Step 0: read both files');
    expect(second!.body.messages[1]!.content).toContain('SUMMARY: big.md holds notes');
    expect(JSON.stringify(second!.body.messages)).not.toContain('of many words');
    // Small again: the next round is not compacted.
    expect(third!.body.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(journal.events.filter((e) => e.type === 'conversation_reset')).toEqual([expect.objectContaining({ compacted: true, summary_source: 'model', dropped_messages: 2 })]);
  });

  it('asks summarization_model for the summary', async () => {
    serve();
    const { executor } = executorFor(spec('{ when_tokens_over: 1000, summarization_model: cheap-model }'), { cwd: workspace() });
    expect((await executor.run()).status).toBe('completed');
    expect(server.requests.filter(isSummaryRequest).map((r) => r.body.model)).toEqual(['cheap-model']);
    expect(stepCalls().map((r) => r.body.model)).toEqual(['m1', 'm1', 'm1']);
  });

  it('has a run ask the provider for summarization_model too, before it starts', async () => {
    server.models = ['m1'];
    const checks = await checkRunModels(loadSpecText(spec('{ summarization_model: cheap-model }'), 'spec.yaml').spec, {});
    expect(checks?.map((c) => [c.model, c.availability.kind])).toEqual([['m1', 'offered'], ['cheap-model', 'missing']]);
  });

  it('leaves the conversation whole below the threshold, or when disabled', async () => {
    for (const compaction of ['{ when_tokens_over: 100000 }', '{ enabled: false, when_tokens_over: 1000 }']) {
      server.requests.length = 0;
      serve();
      const { executor } = executorFor(spec(compaction), { cwd: workspace() });
      expect((await executor.run()).status).toBe('completed');
      expect(server.requests.filter(isSummaryRequest)).toHaveLength(0);
    }
  });

  it('resumes a step stopped after its compaction with the compacted conversation, never asking for the summary again', async () => {
    serve();
    const cwd = workspace();
    const first = executorFor(spec('{ when_tokens_over: 1000 }'), { cwd });
    await first.executor.run();
    // The process dies right after the compaction was journaled: the log ends there.
    const cut = first.journal.events.findIndex((e) => e.type === 'conversation_reset');
    const log = new MemoryJournal();
    log.events.push(...first.journal.events.slice(0, cut + 1));
    const asked = server.requests.length;
    const resumed = executorFor(spec('{ when_tokens_over: 1000 }'), { cwd, journal: log, progress: replayed(log, 1), blobs: first.blobs });
    expect((await resumed.executor.run()).status).toBe('completed');
    const after = server.requests.slice(asked);
    expect(after.filter(isSummaryRequest)).toHaveLength(0);
    expect(after[0]!.body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(after[0]!.body.messages[1]!.content).toContain('SUMMARY: big.md holds notes');
    expect(after).toHaveLength(1);
  });
});
