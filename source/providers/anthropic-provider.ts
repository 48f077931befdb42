import type { ChatMessage, CompletionRequest, CompletionResult, Provider, ToolCall } from '../engine/provider.js';
import { ProviderError } from '../engine/stop-errors.js';
import { redactKnown } from '../secrets/redactor.js';
import { declined } from './declined.js';
import { AnthropicStream } from './anthropic-stream.js';
import { readEventStream, watchedDeltas } from './event-stream.js';
import { isEventStream, openResponse, readJson, type HttpModelSettings, type JsonPost } from './post-json.js';

/** Anthropic refuses a request without max_tokens; this is what we ask for when the spec is silent. */
export const anthropicDefaultMaxTokens = 4096;

/** `baseUrl` is without /v1/messages, e.g. https://api.anthropic.com. */
export type AnthropicSettings = HttpModelSettings;

type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string };

interface WireMessage {
  role: 'user' | 'assistant';
  content: string | ContentBlock[];
}

interface MessagesResponse {
  content?: ContentBlock[];
  stop_reason?: string;
  usage?: { input_tokens?: number; output_tokens?: number; cache_creation_input_tokens?: number | null; cache_read_input_tokens?: number | null };
}

/**
 * Our conversation in Anthropic's shape: system text moves to the top level, and a run of tool
 * results becomes one user turn, since Anthropic wants every result right after its tool_use turn.
 */
export function toAnthropicMessages(messages: readonly ChatMessage[]): { system: string; messages: WireMessage[] } {
  const system: string[] = [];
  const wire: WireMessage[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        system.push(message.content);
        break;
      case 'user':
        wire.push({ role: 'user', content: message.content });
        break;
      case 'assistant': {
        if (!message.tool_calls?.length) {
          wire.push({ role: 'assistant', content: message.content });
          break;
        }
        // Anthropic rejects empty text blocks; a tool-only turn is just its tool_use blocks.
        const text: ContentBlock[] = message.content ? [{ type: 'text', text: message.content }] : [];
        const uses = message.tool_calls.map((call): ContentBlock => ({ type: 'tool_use', id: call.id, name: call.name, input: call.args }));
        wire.push({ role: 'assistant', content: [...text, ...uses] });
        break;
      }
      case 'tool': {
        const result: ContentBlock = { type: 'tool_result', tool_use_id: message.tool_call_id, content: message.content };
        const previous = wire.at(-1);
        if (previous?.role === 'user' && Array.isArray(previous.content) && previous.content.every((b) => b.type === 'tool_result')) previous.content.push(result);
        else wire.push({ role: 'user', content: [result] });
        break;
      }
    }
  }
  return { system: system.join('\n\n'), messages: wire };
}

function toolCall(block: Extract<ContentBlock, { type: 'tool_use' }>): ToolCall {
  const args = block.input && typeof block.input === 'object' && !Array.isArray(block.input) ? (block.input as Record<string, unknown>) : {};
  return { id: block.id, name: block.name, args };
}

/** A streamed answer with the keys in use redacted from every string, as readJson does to a JSON one. */
function secretsOut(message: MessagesResponse): MessagesResponse {
  return JSON.parse(JSON.stringify(message), (_key, value: unknown) => (typeof value === 'string' ? redactKnown(value) : value)) as MessagesResponse;
}

/** Anthropic's Messages API (api.anthropic.com or a compatible proxy), streamed (see AnthropicStream). */
export class AnthropicProvider implements Provider {
  readonly name = 'anthropic';

  constructor(private readonly settings: AnthropicSettings) {}

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    const { baseUrl, apiKey, temperature, maxTokens, topP } = this.settings;
    const url = `${baseUrl.replace(/\/+$/, '')}/v1/messages`;
    const { system, messages } = toAnthropicMessages(request.messages);
    const body = {
      model: request.model ?? this.settings.agentModels?.[request.agent] ?? this.settings.model,
      max_tokens: maxTokens ?? anthropicDefaultMaxTokens,
      ...(system ? { system } : {}),
      messages,
      temperature,
      top_p: topP,
      tools: request.tools?.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.parameters })),
      ...(this.settings.stream !== false ? { stream: true } : {}),
    };
    const post: JsonPost = {
      url,
      headers: { 'anthropic-version': '2023-06-01', ...(apiKey ? { 'x-api-key': apiKey } : {}) },
      body,
      signal: request.signal,
      provider: 'anthropic',
      endpoint: url,
      unreachableHint: this.settings.unreachableHint ?? 'check runtime.host and the network',
    };
    const response = await openResponse(post);
    let parsed: MessagesResponse;
    if (isEventStream(response)) {
      const deltas = watchedDeltas(request.onDelta);
      const stream = new AnthropicStream(url, deltas.onDelta);
      await readEventStream(response, post, stream, deltas);
      // The keys in use leave the answer as they leave a JSON one (post-json.ts): whole, once it is whole.
      parsed = secretsOut(stream.result());
    } else parsed = (await readJson(response, post)) as MessagesResponse;
    if (!Array.isArray(parsed.content)) throw new ProviderError(`${url} answered without a content array`, true);
    if (parsed.stop_reason === 'refusal') throw declined(url, 'refusal', parsed.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join(''));
    const u = parsed.usage;
    // Cached prompt tokens are still prompt tokens: budgets count what the model read.
    const usage = { input: (u?.input_tokens ?? 0) + (u?.cache_creation_input_tokens ?? 0) + (u?.cache_read_input_tokens ?? 0), output: u?.output_tokens ?? 0 };
    const answer = parsed.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
    const calls = parsed.content.flatMap((block) => (block.type === 'tool_use' ? [toolCall(block)] : []));
    const cut = parsed.stop_reason === 'max_tokens' ? { cut: true } : {};
    return calls.length ? { text: answer, tool_calls: calls, usage, ...cut } : { text: answer, usage, ...cut };
  }
}
