import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { executorFor, MemoryJournal, replayed } from '../helpers/engine-harness.js';
import { openAiServerPerTest } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A budget is checked before every model call, a step's tool rounds too: a long agentic step cannot run past it. */

const fixture = openAiServerPerTest();

const spec = (host: string, maxTokens: number) => `version: 0
name: agentic
runtime:
  provider: openai
  model_id: m1
  host: "${host}"
  budgets: { max_tokens: ${maxTokens} }
agents:
  reader: { prompt: "You read.", tools: [file_read] }
pattern:
  type: chain
  config:
    steps:
      - { agent: reader, input: "Step 0: read the notes five times" }
`;

describe('a budget reached inside a step', () => {
  it('pauses before the next tool round, and the resume continues the saved conversation without asking a round again', async () => {
    const { server, baseUrl } = fixture.current();
    // Five tool rounds (15 tokens each, as the test server counts them), then the answer.
    server.handler = (r) => (r.body.messages.filter((m) => m.role === 'tool').length < 5 ? { kind: 'tool_calls', calls: [{ id: '', name: 'file_read', args: { path: 'notes.md' } }] } : { kind: 'answer', text: 'done' });
    const cwd = tempDir();
    writeFileSync(join(cwd, 'notes.md'), 'notes');
    const first = executorFor(spec(baseUrl, 40), { cwd });
    const paused = await first.executor.run();
    expect(paused.status).toBe('paused');
    expect(server.requests).toHaveLength(3); // 45 tokens after the third round: the fourth is not asked
    expect(first.journal.events.find((e) => e.type === 'session_paused')).toMatchObject({ reason: 'budget_exceeded', message: expect.stringContaining('budget reached: 45 tokens used of runtime.budgets.max_tokens 40') });

    const log = new MemoryJournal();
    log.events.push(...first.journal.events);
    const resumed = executorFor(spec(baseUrl, 1000), { cwd, journal: log, progress: replayed(log, 1), blobs: first.blobs });
    expect((await resumed.executor.run()).status).toBe('completed');
    expect(server.requests).toHaveLength(6);
    // The first call of the resume carries the three rounds already done.
    expect(server.requests[3]!.body.messages.filter((m) => m.role === 'tool')).toHaveLength(3);
  });
});
