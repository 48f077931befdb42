import type { WorkflowSpec } from '../spec/schema.js';
import { compactedConversation, conversationChars, saveConversation, summarize } from './conversation.js';
import type { AgentLoopDeps, AgentTurn } from './agent-loop.js';
import type { ChatMessage } from './provider.js';

/** strands-cli's threshold when `when_tokens_over` is not given. */
const defaultThreshold = 60_000;

/** The system prompt and the step's input: what a compaction keeps whole at the start. */
const startLength = 2;

/**
 * A conversation's size in tokens, estimated from its characters (4 a token, as for English text):
 * derived from the conversation alone, so a resume that continues it decides the same.
 */
export function estimatedTokens(messages: readonly ChatMessage[]): number {
  return Math.ceil(conversationChars(messages) / 4);
}

/**
 * How many of the messages after the step's input a compaction summarizes (strands-cli's
 * SummarizingConversationManager): `summary_ratio` of them, at least one, keeping the
 * `preserve_recent_messages` newest when there are more than that, moved past tool results so that
 * none is kept without the call it answers.
 * 0: nothing to summarize.
 */
export function messagesToSummarize(messages: readonly ChatMessage[], ratio: number, preserve: number): number {
  const later = messages.length - startLength;
  if (later < 2) return 0;
  const share = Math.max(1, Math.floor(later * ratio));
  // Too few to keep `preserve` of them (strands-cli reduces it then): the ratio alone decides.
  let count = later > preserve ? Math.min(share, later - preserve) : share;
  while (count < later && messages[startLength + count]?.role === 'tool') count++;
  return count;
}

/**
 * Before a model call: a conversation past `context_policy.compaction.when_tokens_over` has its
 * older part summarized — by the summary machinery of a context overflow (conversation.ts) — and
 * continues with the summary and its newest messages. Journaled as a `conversation_reset`
 * (`compacted`) with the new conversation, so a resume continues the compacted one and never asks
 * for the summary again. `turn.messages` is changed in place.
 */
export async function compactIfDue(turn: AgentTurn, deps: AgentLoopDeps, spec: WorkflowSpec): Promise<void> {
  const policy = spec.context_policy?.compaction;
  if (!policy?.enabled) return;
  const { messages } = turn;
  if (estimatedTokens(messages) <= (policy.when_tokens_over ?? defaultThreshold)) return;
  const count = messagesToSummarize(messages, policy.summary_ratio, policy.preserve_recent_messages);
  if (count === 0) return;
  const older = messages.slice(startLength, startLength + count);
  const model = policy.summarization_model;
  const summary = await summarize(deps.provider, { agent: turn.agent, step: turn.step, attempt: turn.attempt, context: turn.context, signal: deps.signal, ...(model ? { model } : {}) }, older);
  const compacted = compactedConversation(messages.slice(0, startLength), summary, messages.slice(startLength + count));
  // A summary as long as what it replaces saves nothing; it was paid for, so it is still counted.
  const smaller = conversationChars(compacted) < conversationChars(messages);
  if (smaller) messages.splice(0, messages.length, ...compacted);
  deps.emit({
    type: 'conversation_reset', step: turn.step, attempt: turn.attempt, blob: saveConversation(deps.blobs, messages), summary_source: summary.source, summary_chars: summary.text.length,
    dropped_messages: smaller ? count : 0, usage: summary.usage, compacted: true, ...(model ? { model } : {}),
  });
}
