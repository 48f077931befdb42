import type { AgentCliOutcome, AgentCliUpdate } from '../engine/agent-cli.js';
import { cliFailure } from './cli-failure.js';
import type { CliStream } from './cli-stream.js';

type Json = Record<string, unknown>;
const record = (value: unknown): Json | undefined => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined);
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0);

/** How the live view names a tool use: "Edit src/x.ts", "Bash npm test". */
export function toolLine(name: string, input: Json | undefined): string {
  const target = text(input?.file_path) ?? text(input?.path) ?? text(input?.command) ?? text(input?.pattern) ?? text(input?.url);
  return target ? `${name} ${target.split('\n')[0]!.slice(0, 120)}` : name;
}

/**
 * Claude Code's `--output-format stream-json --verbose`: one JSON object per line — `system`/`init`
 * (session_id first of all), `assistant` messages (text and tool_use blocks), `user` tool results, and
 * a closing `result` (result text, is_error, subtype, session_id, usage, total_cost_usd).
 */
export function claudeStream(): CliStream {
  let outcome: AgentCliOutcome | undefined;
  let failure: Error | undefined;
  return {
    line(event: Json, update: (u: AgentCliUpdate) => void) {
      const session = text(event.session_id);
      if (session) update({ kind: 'session', id: session });
      if (event.type === 'assistant') {
        const content = record(event.message)?.content;
        for (const block of Array.isArray(content) ? content : []) {
          const item = record(block);
          if (item?.type === 'text' && text(item.text)) update({ kind: 'text', text: `${text(item.text)}\n` });
          if (item?.type === 'tool_use' && text(item.name)) update({ kind: 'tool', name: toolLine(text(item.name)!, record(item.input)) });
        }
      }
      if (event.type === 'result') {
        const usage = record(event.usage);
        const result = text(event.result) ?? '';
        if (event.is_error === true || (text(event.subtype) ?? 'success') !== 'success') {
          const status = typeof event.api_error_status === 'number' ? event.api_error_status : undefined;
          // claude reports API errors as subtype success with is_error: with no text either, the subtype says nothing.
          const subtype = text(event.subtype);
          failure = cliFailure('claude', result || (subtype && subtype !== 'success' ? `ended with ${subtype}` : 'ended with an error and said nothing about it'), status === undefined ? {} : { status });
          return;
        }
        outcome = {
          text: result,
          sessionId: session ?? null,
          usage: { input: count(usage?.input_tokens) + count(usage?.cache_creation_input_tokens) + count(usage?.cache_read_input_tokens), output: count(usage?.output_tokens) },
          costUsd: typeof event.total_cost_usd === 'number' && Number.isFinite(event.total_cost_usd) ? event.total_cost_usd : null,
        };
      }
    },
    end: () => (failure ? { failure } : outcome ? { outcome } : undefined),
  };
}
