import type { EventSourceMessage } from 'eventsource-parser';
import type { CompletionDelta } from '../engine/provider.js';
import { ProviderError } from '../engine/stop-errors.js';
import { classifyStreamError } from './failure-classifier.js';
import { truncatedStream } from './event-stream.js';

/** A tool call as it streams: fragments of it arrive by `index`, the id and name first, the arguments in pieces. */
interface CallParts {
  id: string;
  name: string;
  arguments: string;
}

interface ChunkChoice {
  index?: number;
  delta?: { content?: string | null; refusal?: string | null; tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: string } }[] };
  finish_reason?: string | null;
}

interface Chunk {
  choices?: ChunkChoice[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: unknown;
}

/** The choice of index 0 (the only one asked for), found without a closure: this runs for every piece of an answer. */
function firstChoice(choices: ChunkChoice[] | undefined): ChunkChoice | undefined {
  if (!choices) return undefined;
  for (const choice of choices) if ((choice.index ?? 0) === 0) return choice;
  return undefined;
}

/** What an OpenAI chat-completions stream said once whole: as a non-streamed answer's message and usage. */
export interface StreamedCompletion {
  content: string;
  /** What the model said instead of answering (OpenAI's `refusal`), and why it stopped. */
  refusal?: string;
  finish_reason?: string;
  tool_calls: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

/**
 * Puts an OpenAI chat-completions stream (`stream: true`) back together: `choices[0].delta.content`
 * pieces, `delta.tool_calls` fragments by index, the usage chunk `stream_options.include_usage` adds
 * (empty choices), and `data: [DONE]`. A stream that ends before [DONE] and before any finish_reason
 * is cut short; an `error` object in a chunk (vLLM, llama.cpp, proxies) is classified as the failure
 * it names.
 */
export class OpenAiStream {
  private text = '';
  private refusal = '';
  private finishReason: string | undefined;
  private readonly calls: CallParts[] = [];
  private usage: StreamedCompletion['usage'];
  private finished = false;
  private done = false;

  constructor(
    private readonly url: string,
    private readonly onDelta?: (delta: CompletionDelta) => void,
  ) {}

  event(message: EventSourceMessage): void {
    if (message.data === '[DONE]') {
      this.done = true;
      return;
    }
    let chunk: Chunk;
    try {
      chunk = JSON.parse(message.data) as Chunk;
    } catch {
      throw new ProviderError(`${this.url} streamed an event that is not JSON: ${message.data.slice(0, 120)}`, true);
    }
    if (chunk.error) throw classifyStreamError('openai', message.data, this.url);
    if (chunk.usage) this.usage = chunk.usage;
    const choice = firstChoice(chunk.choices);
    if (!choice) return;
    const content = choice.delta?.content;
    if (typeof content === 'string' && content) {
      this.text += content;
      this.onDelta?.({ kind: 'text', text: content });
    }
    const refusal = choice.delta?.refusal;
    if (typeof refusal === 'string') this.refusal += refusal;
    const fragments = choice.delta?.tool_calls;
    if (fragments) this.addCalls(fragments);
    if (choice.finish_reason) {
      this.finished = true;
      this.finishReason = choice.finish_reason;
    }
  }

  private addCalls(fragments: NonNullable<NonNullable<ChunkChoice['delta']>['tool_calls']>): void {
    for (const fragment of fragments) {
      const at = fragment.index ?? this.calls.length;
      let call = this.calls[at];
      if (!call) {
        call = { id: '', name: '', arguments: '' };
        this.calls[at] = call;
      }
      if (fragment.id) call.id = fragment.id;
      // A call's name comes whole in its first fragment; servers that repeat it in every fragment
      // (MiniMax via NIM, Fireworks) made file_writefile_write… of it: later ones are the same name.
      if (fragment.function?.name && call.name === '') {
        call.name = fragment.function.name;
        this.onDelta?.({ kind: 'tool_call', name: call.name });
      }
      if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
    }
  }

  /** `data: [DONE]` came: nothing after it is part of the answer. */
  over(): boolean {
    return this.done;
  }

  /** A finish_reason came: the usage chunk and [DONE] may follow. */
  ending(): boolean {
    return this.finished;
  }

  /** The whole answer, once the stream has ended. */
  result(): StreamedCompletion {
    if (!this.done && !this.finished) throw truncatedStream(this.url, 'its end (data: [DONE])');
    const tool_calls = this.calls.filter(Boolean).map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } }));
    return { content: this.text, tool_calls, usage: this.usage, ...(this.refusal ? { refusal: this.refusal } : {}), ...(this.finishReason ? { finish_reason: this.finishReason } : {}) };
  }
}
