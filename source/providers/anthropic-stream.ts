import type { EventSourceMessage } from 'eventsource-parser';
import type { CompletionDelta } from '../engine/provider.js';
import { ProviderError } from '../engine/stop-errors.js';
import { classifyStreamError } from './failure-classifier.js';
import { truncatedStream } from './event-stream.js';

type Usage = { input_tokens?: number; output_tokens?: number; cache_creation_input_tokens?: number | null; cache_read_input_tokens?: number | null };

/** A content block as it streams: text pieces, or a tool_use whose input arrives as pieces of JSON. */
type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; json: string; input: unknown } | { type: 'other' };

interface StreamEvent {
  type?: string;
  index?: number;
  message?: { usage?: Usage };
  content_block?: { type?: string; text?: string; id?: string; name?: string; input?: unknown };
  delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string | null };
  usage?: Usage;
}

/** The counts of `usage` that are numbers. */
function countsGiven(usage: Usage | undefined): Usage {
  return Object.fromEntries(Object.entries(usage ?? {}).filter(([, count]) => typeof count === 'number')) as Usage;
}

/** What a Messages stream said once whole, in the shape of a non-streamed answer. */
export interface StreamedMessage {
  content: ({ type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown })[];
  usage: Usage;
  stop_reason?: string;
}

/**
 * Puts an Anthropic Messages stream (`stream: true`) back together: message_start (the input
 * usage), content_block_start / content_block_delta (text_delta, input_json_delta) / content_block_stop,
 * message_delta (the output usage, cumulative), message_stop; `ping` and blocks acode does not use
 * (thinking) are passed over. An `error` event is classified as the failure its type stands for; a
 * stream that ends before message_stop is cut short.
 */
export class AnthropicStream {
  private readonly blocks: Block[] = [];
  private usage: Usage = {};
  private stopped = false;
  private stopReason: string | undefined;

  constructor(
    private readonly url: string,
    private readonly onDelta?: (delta: CompletionDelta) => void,
  ) {}

  event(message: EventSourceMessage): void {
    let event: StreamEvent;
    try {
      event = JSON.parse(message.data) as StreamEvent;
    } catch {
      throw new ProviderError(`${this.url} streamed an event that is not JSON: ${message.data.slice(0, 120)}`, true);
    }
    const type: string = event.type ?? message.event ?? '';
    switch (type) {
      case 'error':
        throw classifyStreamError('anthropic', message.data, this.url);
      case 'message_start':
        this.usage = { ...event.message?.usage };
        return;
      case 'content_block_start':
        return this.start(event.index ?? this.blocks.length, event.content_block ?? {});
      case 'content_block_delta':
        return this.delta(event.index ?? this.blocks.length - 1, event.delta ?? {});
      case 'message_delta':
        // Counts in message_delta are cumulative: the latest is the whole. A count given as null (the
        // API's schema allows it: "not counted here") leaves the one message_start gave: a null
        // input_tokens had made a 1,500-token call read 0 in.
        this.usage = { ...this.usage, ...countsGiven(event.usage) };
        if (event.delta?.stop_reason) this.stopReason = event.delta.stop_reason;
        return;
      case 'message_stop':
        this.stopped = true;
        return;
      default:
        return; // ping, content_block_stop, and event types added later
    }
  }

  private start(index: number, block: NonNullable<StreamEvent['content_block']>): void {
    if (block.type === 'text') {
      this.blocks[index] = { type: 'text', text: block.text ?? '' };
      if (block.text) this.onDelta?.({ kind: 'text', text: block.text });
    } else if (block.type === 'tool_use') {
      this.blocks[index] = { type: 'tool_use', id: block.id ?? '', name: block.name ?? '', json: '', input: block.input ?? {} };
      this.onDelta?.({ kind: 'tool_call', name: block.name ?? '' });
    } else this.blocks[index] = { type: 'other' };
  }

  private delta(index: number, delta: NonNullable<StreamEvent['delta']>): void {
    // Text for a block never started (some proxies leave content_block_start out) starts one: it had been dropped.
    if (this.blocks[index] === undefined && delta.type === 'text_delta' && index >= 0) this.blocks[index] = { type: 'text', text: '' };
    const block = this.blocks[index];
    if (block?.type === 'text' && delta.type === 'text_delta' && delta.text) {
      block.text += delta.text;
      this.onDelta?.({ kind: 'text', text: delta.text });
    } else if (block?.type === 'tool_use' && delta.type === 'input_json_delta' && delta.partial_json) block.json += delta.partial_json;
  }

  /** message_stop came: nothing after it is part of the answer. */
  over(): boolean {
    return this.stopped;
  }

  /** message_delta said why the model stopped: message_stop may follow. */
  ending(): boolean {
    return this.stopReason !== undefined;
  }

  /** The whole answer, once the stream has ended (message_stop, or a stop reason the stream never followed with it). */
  result(): StreamedMessage {
    if (!this.stopped && this.stopReason === undefined) throw truncatedStream(this.url, 'message_stop');
    // message_start then message_stop and nothing between: no answer (as a JSON one without content), not an empty one journaled as the step's.
    if (this.stopReason === undefined && !this.blocks.some(Boolean)) throw new ProviderError(`${this.url} streamed no answer: no content block and no stop_reason before message_stop`, true);
    const content = this.blocks.flatMap((block): StreamedMessage['content'] => {
      if (block.type === 'text') return [{ type: 'text', text: block.text }];
      if (block.type !== 'tool_use') return [];
      let input = block.input;
      try {
        if (block.json) input = JSON.parse(block.json);
      } catch {
        input = {}; // malformed input reaches the tool as none; it answers the model with what is missing
      }
      return [{ type: 'tool_use', id: block.id, name: block.name, input }];
    });
    return { content, usage: this.usage, ...(this.stopReason ? { stop_reason: this.stopReason } : {}) };
  }
}
