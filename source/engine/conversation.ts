import type { BlobStore } from './blob-store.js';
import type { TokenUsage } from './events.js';
import type { ChatMessage, CompletionRequest, Provider } from './provider.js';

/** An agent's conversation as stored in the session's blob store (JSON, content-addressed). */
export function saveConversation(blobs: BlobStore, messages: readonly ChatMessage[]): string {
  return blobs.put(Buffer.from(JSON.stringify(messages)));
}

export function loadConversation(blobs: BlobStore, blob: string): ChatMessage[] {
  return JSON.parse(blobs.get(blob).toString('utf8')) as ChatMessage[];
}

/** How much of the old conversation the summary request (or the fallback) carries. */
const transcriptChars = 24_000;
const fallbackChars = 4_000;

function transcript(messages: readonly ChatMessage[]): string {
  return messages
    .filter((m) => m.role !== 'system')
    .map((m) => {
      if (m.role === 'tool') return `[tool ${m.name} result] ${m.content}`;
      const calls = m.role === 'assistant' && m.tool_calls?.length ? ` [called ${m.tool_calls.map((c) => `${c.name}(${JSON.stringify(c.args).slice(0, 200)})`).join(', ')}]` : '';
      return `[${m.role}] ${m.content}${calls}`;
    })
    .join('\n');
}

export interface Summary {
  text: string;
  /** `model`: the agent's model wrote it; `truncation`: that failed, so the latest part of the transcript is kept. */
  source: 'model' | 'truncation';
  /** What the summary request cost (zero for a truncation). */
  usage: TokenUsage;
}

/** Characters of a conversation as sent: whether a fresh one is any smaller. */
export function conversationChars(messages: readonly ChatMessage[]): number {
  return JSON.stringify(messages).length;
}

/**
 * A summary of a conversation that outgrew the model's context: asked of the model itself (on the
 * newest part of the transcript, so the request fits), else the transcript's tail.
 */
export async function summarize(provider: Provider, request: Omit<CompletionRequest, 'messages' | 'tools' | 'purpose'>, messages: readonly ChatMessage[]): Promise<Summary> {
  const text = transcript(messages);
  try {
    const answer = await provider.complete({
      ...request,
      purpose: 'summary',
      messages: [
        { role: 'system', content: 'You summarize an agent\'s unfinished work so that a fresh conversation can continue it. Keep decisions, findings, files touched and what remains to do. Be concise.' },
        { role: 'user', content: text.slice(-transcriptChars) },
      ],
    });
    if (answer.text.trim()) return { text: answer.text.trim(), source: 'model', usage: answer.usage };
  } catch (error) {
    // Stopped by the person: no summary at all, the old conversation stays the one to resume.
    if (request.signal.aborted) throw error;
    // The summary request failed too (often: still too long); the transcript's tail stands in.
  }
  return { text: text.slice(-fallbackChars), source: 'truncation', usage: { input: 0, output: 0 } };
}

/** The fresh conversation: the step's own system prompt and input, then what was done so far. */
export function seededConversation(start: readonly ChatMessage[], summary: Summary): ChatMessage[] {
  const [system, user] = start;
  const note = `\n\n[This step was started before, and its conversation outgrew the model's context. ${summary.source === 'model' ? 'Summary' : 'The latest part'} of the work so far:]\n${summary.text}`;
  return [...(system ? [system] : []), { role: 'user', content: `${user?.content ?? ''}${note}` }];
}

/**
 * A conversation compacted before it reached the model's limit: the step's own system prompt and
 * input with the summary of the older part, then the newest messages as they were.
 */
export function compactedConversation(start: readonly ChatMessage[], summary: Summary, recent: readonly ChatMessage[]): ChatMessage[] {
  const [system, user] = start;
  const note = `\n\n[The earlier part of this step's conversation was summarized to stay within the model's context. ${summary.source === 'model' ? 'Summary' : 'Its latest part'}:]\n${summary.text}`;
  return [...(system ? [system] : []), { role: 'user', content: `${user?.content ?? ''}${note}` }, ...recent];
}
