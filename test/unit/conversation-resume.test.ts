import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { executorFor, MemoryJournal, replayed } from '../helpers/engine-harness.js';
import { tempDir } from '../helpers/temp-dir.js';

/** One step whose agent reads a file (round 1), then answers (round 2); `faults` may stop round 2. */
function spec(scripted: string) {
  return `version: 0
name: conversation
runtime:
  provider: scripted
  scripted:
${scripted}
    responses:
      reader:
        tool_calls: [ { name: file_read, args: { path: notes.md } } ]
        then: "read the notes"
agents:
  reader: { prompt: "You read.", tools: [file_read] }
pattern:
  type: chain
  config:
    steps:
      - { agent: reader, input: "read notes.md" }
`;
}

describe("an agent's conversation", () => {
  it('is continued, not restarted, when a rate limit interrupts it mid-loop', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'notes.md'), 'notes');
    const { executor, journal } = executorFor(spec('    faults:\n      - { step: 0, kind: rate_limit, retry_after_s: 0, round: 2 }'), { cwd });
    expect((await executor.run()).status).toBe('completed');
    expect(journal.events.filter((e) => e.type === 'tool_called')).toHaveLength(1); // the file was read once
    expect(journal.events.filter((e) => e.type === 'step_started')).toHaveLength(2);
    expect(journal.events.find((e) => e.type === 'conversation_saved')).toMatchObject({ step: 0, attempt: 1, messages: 4 });
  });

  it('is saved with the session and continued by a resume instead of starting blank', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'notes.md'), 'notes');
    const journal = new MemoryJournal();
    const text = spec('    latency_ms: 40');
    const first = executorFor(text, { cwd, journal });
    first.executor.subscribe((e) => e.type === 'conversation_saved' && first.executor.cancel());
    expect((await first.executor.run()).status).toBe('paused');

    const progress = replayed(journal, 1);
    expect(progress.conversation).toMatchObject({ step: 0, blob: expect.any(String) });
    const before = journal.events.length;
    const resumed = executorFor(text, { cwd, journal, progress, blobs: first.blobs });
    expect((await resumed.executor.run()).status).toBe('completed');
    const after = journal.events.slice(before);
    expect(after.filter((e) => e.type === 'tool_called')).toHaveLength(0); // round 1 is not redone
    expect(after.find((e) => e.type === 'step_completed')).toMatchObject({ step: 0, attempt: 2, response: 'read the notes' });
  });

  it('counts the tokens of every round, including rounds of an attempt that failed', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'notes.md'), 'notes');
    const { executor, journal } = executorFor(spec('    faults:\n      - { step: 0, kind: rate_limit, retry_after_s: 0, round: 2 }'), { cwd });
    const summary = await executor.run();
    const rounds = journal.events.flatMap((e) => (e.type === 'conversation_saved' || e.type === 'step_completed' ? [e.usage] : []));
    expect(rounds).toHaveLength(2);
    expect(summary.tokens).toEqual({ input: rounds[0]!.input + rounds[1]!.input, output: rounds[0]!.output + rounds[1]!.output });
  });
});
