import type { AgentCliUpdate } from '../engine/agent-cli.js';
import { cliFailure } from './cli-failure.js';
import { toolLine } from './claude-stream.js';
import type { CliStream } from './cli-stream.js';

type Json = Record<string, unknown>;
const record = (value: unknown): Json | undefined => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined);
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0);

/**
 * Codex's `codex exec --json` (codex-rs/exec/src/exec_events.rs): `thread.started` {thread_id} first,
 * then `turn.started`, `item.started|updated|completed` {item: {type: agent_message | command_execution |
 * file_change | …}}, and `turn.completed` {usage} or `turn.failed` {error} / `error` {message}.
 * The answer is the last agent_message; usage is summed over turns. Codex says no price.
 */
export function codexStream(): CliStream {
  let thread: string | null = null;
  let answer: string | undefined;
  let failure: Error | undefined;
  let completed = false;
  const usage = { input: 0, output: 0 };
  return {
    line(event: Json, update: (u: AgentCliUpdate) => void) {
      if (event.type === 'thread.started' && text(event.thread_id)) {
        thread = text(event.thread_id)!;
        update({ kind: 'session', id: thread });
      }
      const item = record(event.item);
      if (item && event.type === 'item.completed' && item.type === 'agent_message' && text(item.text) !== undefined) {
        answer = text(item.text)!;
        update({ kind: 'text', text: `${answer}\n` });
      }
      if (item && event.type === 'item.started' && item.type === 'command_execution') update({ kind: 'tool', name: toolLine('Bash', { command: item.command }) });
      if (item && event.type === 'item.completed' && item.type === 'file_change' && Array.isArray(item.changes)) {
        for (const change of item.changes) update({ kind: 'tool', name: toolLine('Edit', record(change)) });
      }
      if (event.type === 'turn.completed') {
        completed = true;
        const used = record(event.usage);
        usage.input += count(used?.input_tokens);
        usage.output += count(used?.output_tokens);
      }
      if (event.type === 'turn.failed' || event.type === 'error') {
        const message = text(record(event.error)?.message) ?? text(event.message) ?? 'codex reported an error';
        failure ??= cliFailure('codex', message);
      }
    },
    end: () => (failure ? { failure } : completed ? { outcome: { text: answer ?? '', sessionId: thread, usage: { ...usage }, costUsd: null } } : undefined),
  };
}
