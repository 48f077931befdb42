import { writeFileSync } from 'node:fs';
import { loadConversation } from '../../source/engine/conversation.js';
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
    // Saved when the model asked for the read (before it ran), and again with its result.
    expect(journal.events.filter((e) => e.type === 'conversation_saved').map((e) => e.type === 'conversation_saved' && [e.attempt, e.messages])).toEqual([[1, 3], [1, 4]]);
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
    expect(progress.conversations).toMatchObject({ '0': expect.any(String) });
    const before = journal.events.length;
    const resumed = executorFor(text, { cwd, journal, progress, blobs: first.blobs });
    expect((await resumed.executor.run()).status).toBe('completed');
    const after = journal.events.slice(before);
    expect(after.filter((e) => e.type === 'tool_called')).toHaveLength(0); // round 1 is not redone
    expect(after.find((e) => e.type === 'step_completed')).toMatchObject({ step: '0', attempt: 2, response: 'read the notes' });
  });

  it('counts the tokens of every round, including rounds of an attempt that failed', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'notes.md'), 'notes');
    const { executor, journal } = executorFor(spec('    faults:\n      - { step: 0, kind: rate_limit, retry_after_s: 0, round: 2 }'), { cwd });
    const summary = await executor.run();
    // A model call's tokens are counted once: with its saved answer (the save after the tools adds none).
    const rounds = journal.events.flatMap((e) => (e.type === 'conversation_saved' || e.type === 'step_completed' ? [e.usage] : [])).filter((u) => u.input + u.output > 0);
    expect(rounds).toHaveLength(2);
    expect(summary.tokens).toEqual({ input: rounds[0]!.input + rounds[1]!.input, output: rounds[0]!.output + rounds[1]!.output });
  });

  it('continues in a new conversation seeded with a summary by the model when it outgrows the context', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'notes.md'), 'notes');
    const { executor, journal } = executorFor(spec('    faults:\n      - { step: 0, kind: context_exhausted, round: 2 }'), { cwd });
    expect((await executor.run()).status).toBe('completed');
    expect(journal.events.find((e) => e.type === 'resume_attempt')).toMatchObject({ stop_reason: 'context_exhausted', strategy: 'new_session' });
    const reset = journal.events.find((e) => e.type === 'conversation_reset');
    expect(reset).toMatchObject({ step: '0', attempt: 1, summary_source: 'model', dropped_messages: 4, usage: { input: expect.any(Number), output: expect.any(Number) } });
    // The summary's tokens are counted with the session's.
    const spent = journal.events.flatMap((e) => (e.type === 'conversation_saved' || e.type === 'conversation_reset' || e.type === 'step_completed' ? [e.usage] : [])).filter((u) => u.input + u.output > 0);
    expect(spent.length).toBe(4); // a tool round, the summary, the fresh conversation's tool round, the answer
    expect(replayed(journal, 1).tokens).toEqual({ input: spent.reduce((n, u) => n + u.input, 0), output: spent.reduce((n, u) => n + u.output, 0) });
  });

  it('finishes a round of tool calls after Ctrl+C, so a resume never redoes tools that ran', async () => {
    const cwd = tempDir();
    const text = spec('    latency_ms: 20').replace('tool_calls: [ { name: file_read, args: { path: notes.md } } ]', 'tool_calls: [ { name: file_write, args: { path: a.txt, content: "a" } }, { name: file_write, args: { path: b.txt, content: "b" } } ]').replace('tools: [file_read]', 'tools: [file_write]');
    const { executor, journal } = executorFor(text, { cwd });
    executor.subscribe((e) => e.type === 'tool_result' && executor.cancel());
    expect((await executor.run()).status).toBe('paused');
    expect(journal.events.filter((e) => e.type === 'file_write_applied')).toHaveLength(2);
    expect(journal.events.filter((e) => e.type === 'conversation_saved').at(-1)).toMatchObject({ messages: 5 });
    expect(replayed(journal, 1).tokens.input).toBeGreaterThan(0);
  });

  describe('killed after a tool answered, before its round was saved', () => {
    /** Runs the step once, then keeps the log only up to the read's tool_result: the process died there. */
    async function killedAfterRead(notes: string, legacy = false) {
      const cwd = tempDir();
      writeFileSync(join(cwd, 'notes.md'), notes);
      const journal = new MemoryJournal();
      const first = executorFor(spec('    response_bytes: 64'), { cwd, journal });
      expect((await first.executor.run()).status).toBe('completed');
      const cut = journal.events.findIndex((e) => e.type === 'tool_result');
      journal.events.splice(cut + 1);
      const result = journal.events[cut]!;
      // A log from before output_blob existed: the event's output is all there is, cut at 2000 characters.
      if (legacy && result.type === 'tool_result') delete result.output_blob;
      // Someone edits the file: a read run again would give the model something else.
      writeFileSync(join(cwd, 'notes.md'), 'edited since');
      const before = journal.events.length;
      const resumed = executorFor(spec('    response_bytes: 64'), { cwd, journal, progress: replayed(journal, 1), blobs: first.blobs });
      expect((await resumed.executor.run()).status).toBe('completed');
      const after = journal.events.slice(before);
      const saved = after.find((e) => e.type === 'conversation_saved');
      const toolMessage = saved?.type === 'conversation_saved' ? loadConversation(first.blobs, saved.blob).at(-1) : undefined;
      return { after, toolMessage };
    }

    it('gives the model the whole recorded result, however long, without running the tool again', async () => {
      const notes = 'é'.repeat(1500) + '🙂'.repeat(2000);
      const { after, toolMessage } = await killedAfterRead(notes);
      expect(after.filter((e) => e.type === 'tool_called')).toHaveLength(0);
      expect(toolMessage).toMatchObject({ role: 'tool', tool_call_id: 'call_0_0', content: notes });
      expect(after.filter((e) => e.type === 'step_completed')).toHaveLength(1);
    });

    it('runs the tool again when an old log holds only the first 2000 characters of its result', async () => {
      const { after, toolMessage } = await killedAfterRead('x'.repeat(3000), true);
      expect(after.filter((e) => e.type === 'tool_called')).toHaveLength(1);
      expect(toolMessage).toMatchObject({ role: 'tool', content: 'edited since' });
    });
  });
});
