import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli.js';
import { openAiServerPerTest, type ChatRequest } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A run killed (SIGKILL) right after its conversation was compacted resumes with the compacted one. */

const openai = openAiServerPerTest();

const spec = (host: string) => `version: 0
name: compacted
runtime: { provider: openai, model_id: m1, host: "${host}" }
context_policy:
  compaction: { when_tokens_over: 1000 }
agents:
  reader: { prompt: "You read.", tools: [file_read] }
pattern:
  type: chain
  config:
    steps:
      - { agent: reader, input: "Step 0: read the notes" }
outputs:
  artifacts:
    - { path: out.md, from: "{{ last_response }}" }
`;

const isSummary = (r: ChatRequest) => r.system.startsWith('You summarize');

describe('context_policy.compaction across a kill', () => {
  it('never asks for the summary again, and sends the compacted conversation', async () => {
    const { server, baseUrl } = openai.current();
    const cwd = tempDir();
    writeFileSync(join(cwd, 'spec.yaml'), spec(baseUrl));
    writeFileSync(join(cwd, 'notes.md'), `notes ${'of many words '.repeat(600)}`);
    const ws = { cwd, env: { ACODE_HOME: join(cwd, 'home'), OPENAI_API_KEY: 'sk-compact-Q7vX2mLp9RzT4wKd8NfB' } };
    let killed = false;
    server.handler = (r) => {
      if (isSummary(r)) return { kind: 'answer', text: 'SUMMARY: the notes are long' };
      if (r.body.messages.length === 2 && !r.body.messages[1]!.content.includes('SUMMARY')) return { kind: 'tool_calls', calls: [{ id: 'call_1', name: 'file_read', args: { path: 'notes.md' } }] };
      // The call after the compaction: the first one never answers (the process is killed while it waits).
      return killed ? { kind: 'answer', text: 'read them' } : { kind: 'hang' };
    };
    const run = startCli(['run', 'spec.yaml'], ws);
    await server.waitFor((r) => !isSummary(r) && r.body.messages[1]!.content.includes('SUMMARY'));
    run.child.kill('SIGKILL');
    expect((await run.done).signal).toBe('SIGKILL');
    killed = true;

    const resumed = await runCli(['resume', '--yes'], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(server.requests.filter(isSummary)).toHaveLength(1);
    const afterKill = server.requests.at(-1)!;
    expect(afterKill.body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(afterKill.body.messages[1]!.content).toContain('SUMMARY: the notes are long');
    expect(server.requests.filter((r) => !isSummary(r))).toHaveLength(3);
  });
});
