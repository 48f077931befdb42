import { describe, expect, it } from 'vitest';
import type { AgentCliUpdate } from '../../source/engine/agent-cli.js';
import { claudeStream } from '../../source/agent-cli/claude-stream.js';
import { codexStream } from '../../source/agent-cli/codex-stream.js';
import { cliArgs } from '../../source/agent-cli/cli-args.js';
import { resetDelayMs } from '../../source/agent-cli/reset-time.js';
import { ContextExhaustedError, ProviderError, RateLimitError } from '../../source/engine/stop-errors.js';

function feed(stream: ReturnType<typeof claudeStream>, lines: object[]): AgentCliUpdate[] {
  const updates: AgentCliUpdate[] = [];
  for (const line of lines) stream.line(line as Record<string, unknown>, (u) => updates.push(u));
  return updates;
}

describe("claude's stream-json", () => {
  it('names the session at init, streams text and tool uses, and ends with the result, its usage and cost', () => {
    const stream = claudeStream();
    const updates = feed(stream, [
      { type: 'system', subtype: 'init', session_id: 's-1', tools: ['Edit'] },
      { type: 'assistant', message: { content: [{ type: 'text', text: 'Looking' }, { type: 'tool_use', id: 't', name: 'Edit', input: { file_path: 'src/x.ts', old_string: 'a' } }] }, session_id: 's-1' },
      { type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 't', content: 'ok' }] }, session_id: 's-1' },
      { type: 'result', subtype: 'success', is_error: false, result: 'Done.', session_id: 's-1', total_cost_usd: 0.25, usage: { input_tokens: 10, cache_creation_input_tokens: 5, cache_read_input_tokens: 100, output_tokens: 7 } },
    ]);
    expect(updates[0]).toEqual({ kind: 'session', id: 's-1' });
    expect(updates).toContainEqual({ kind: 'text', text: 'Looking\n' });
    expect(updates).toContainEqual({ kind: 'tool', name: 'Edit src/x.ts' });
    expect(stream.end()).toEqual({ outcome: { text: 'Done.', sessionId: 's-1', usage: { input: 115, output: 7 }, costUsd: 0.25 } });
  });

  it('reads an error result: a usage limit with its reset time, a context overflow, anything else a failure — the id still captured', () => {
    const now = Date.now();
    const limited = claudeStream();
    const updates = feed(limited, [{ type: 'result', subtype: 'success', is_error: true, result: `Claude AI usage limit reached|${Math.floor(now / 1000) + 3600}`, session_id: 's-2' }]);
    expect(updates).toEqual([{ kind: 'session', id: 's-2' }]);
    const failure = (limited.end() as { failure: Error }).failure;
    expect(failure).toBeInstanceOf(RateLimitError);
    expect((failure as RateLimitError).retryAfterMs).toBeGreaterThan(3_500_000);
    const long = claudeStream();
    feed(long, [{ type: 'result', subtype: 'error_during_execution', is_error: true, result: 'Prompt is too long', session_id: 's-3' }]);
    expect((long.end() as { failure: Error }).failure).toBeInstanceOf(ContextExhaustedError);
    const other = claudeStream();
    feed(other, [{ type: 'result', subtype: 'error_max_turns', is_error: true, result: '', session_id: 's-4' }]);
    expect((other.end() as { failure: Error }).failure).toBeInstanceOf(ProviderError);
    expect(claudeStream().end()).toBeUndefined();
  });

  it('says an error result with no text and subtype success is an error, never that it "ended with success"', () => {
    const bare = claudeStream();
    feed(bare, [{ type: 'result', subtype: 'success', is_error: true, session_id: 's-5' }]);
    const { message } = (bare.end() as { failure: Error }).failure;
    expect(message).not.toContain('success');
    expect(message).toBe('claude: ended with an error and said nothing about it');
    const turns = claudeStream();
    feed(turns, [{ type: 'result', subtype: 'error_max_turns', is_error: true, session_id: 's-6' }]);
    expect((turns.end() as { failure: Error }).failure.message).toBe('claude: ended with error_max_turns');
  });
});

describe("codex's exec --json", () => {
  it('names the thread first, sums usage over turns, and answers with the last agent message', () => {
    const stream = codexStream();
    const updates = feed(stream, [
      { type: 'thread.started', thread_id: 'th-1' },
      { type: 'turn.started' },
      { type: 'item.started', item: { id: 'a', type: 'command_execution', command: 'npm test', aggregated_output: '', exit_code: null, status: 'in_progress' } },
      { type: 'item.completed', item: { id: 'b', type: 'file_change', changes: [{ path: 'src/y.ts', kind: 'update' }], status: 'completed' } },
      { type: 'item.completed', item: { id: 'c', type: 'agent_message', text: 'All green.' } },
      { type: 'turn.completed', usage: { input_tokens: 100, cached_input_tokens: 20, output_tokens: 9 } },
    ]);
    expect(updates[0]).toEqual({ kind: 'session', id: 'th-1' });
    expect(updates).toContainEqual({ kind: 'tool', name: 'Bash npm test' });
    expect(updates).toContainEqual({ kind: 'tool', name: 'Edit src/y.ts' });
    expect(stream.end()).toEqual({ outcome: { text: 'All green.', sessionId: 'th-1', usage: { input: 100, output: 9 }, costUsd: null } });
  });

  it('takes turn.failed and error events as the failure they report', () => {
    const stream = codexStream();
    feed(stream, [{ type: 'thread.started', thread_id: 'th-2' }, { type: 'error', message: "You've hit your usage limit. To get more access now, send a request to your admin or try again in 3 days 6 hours 57 minutes." }]);
    const failure = (stream.end() as { failure: RateLimitError }).failure;
    expect(failure).toBeInstanceOf(RateLimitError);
    expect(failure.retryAfterMs).toBe(((3 * 24 + 6) * 60 + 57) * 60_000);
  });
});

describe('reset times in usage-limit messages', () => {
  const now = new Date(2026, 10, 28, 14, 0, 0);
  it('reads epochs, spans and clock times (the next such time of day)', () => {
    expect(resetDelayMs(`limit reached|${Math.floor(now.getTime() / 1000) + 60}`, now)).toBe(60_000);
    expect(resetDelayMs('Try again in 2 hours 5 minutes.', now)).toBe(7_500_000);
    expect(resetDelayMs('5-hour limit reached ∙ resets 3pm', now)).toBe(3_600_000);
    expect(resetDelayMs('try again at 1:30 PM.', now)).toBe(23.5 * 3_600_000);
    expect(resetDelayMs('usage limit reached', now)).toBeUndefined();
  });
});

describe('the headless command lines', () => {
  it('are each tool’s documented flags, the prompt on stdin', () => {
    expect(cliArgs({ cli: 'claude', resumeId: 'abc', model: 'sonnet', allowedTools: ['Read', 'Edit'], args: ['--permission-mode', 'acceptEdits'] })).toEqual(['-p', '--output-format', 'stream-json', '--verbose', '--resume', 'abc', '--model', 'sonnet', '--allowedTools', 'Read,Edit', '--permission-mode', 'acceptEdits']);
    expect(cliArgs({ cli: 'codex', model: 'gpt-5-codex', args: ['--skip-git-repo-check'] })).toEqual(['exec', '--json', '--model', 'gpt-5-codex', '--skip-git-repo-check', '-']);
    expect(cliArgs({ cli: 'codex', resumeId: 'th-1' })).toEqual(['exec', '--json', 'resume', 'th-1', '-']);
  });
});
