import type { ChatMessage, CompletionRequest, CompletionResult, Provider, ToolCall } from '../engine/provider.js';
import { ProviderError } from '../engine/stop-errors.js';
import { redactKnown } from '../secrets/redactor.js';
import { readEventStream, watchedDeltas } from './event-stream.js';
import { OpenAiStream } from './openai-stream.js';
import { declined } from './declined.js';
import { isEventStream, openResponse, readJson, type HttpModelSettings, type JsonPost } from './post-json.js';

/** `baseUrl` ends before /chat/completions, e.g. http://127.0.0.1:8080/v1. */
export type OpenAiSettings = HttpModelSettings;

interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

interface ChatCompletion {
  choices?: { message?: { content?: string | null; refusal?: string | null; tool_calls?: WireToolCall[] }; finish_reason?: string | null }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

/** Our messages in OpenAI's chat format (tool calls carry JSON-encoded arguments). */
function toWire(message: ChatMessage): Record<string, unknown> {
  if (message.role === 'tool') return { role: 'tool', tool_call_id: message.tool_call_id, content: message.content };
  if (message.role === 'assistant' && message.tool_calls?.length) {
    return {
      role: 'assistant',
      content: message.content || null,
      tool_calls: message.tool_calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } })),
    };
  }
  return { role: message.role, content: message.content };
}

function fromWire(call: WireToolCall): ToolCall {
  let args: Record<string, unknown> = {};
  try {
    // The arguments are JSON inside JSON: a key echoed \u-escaped in them passed the redaction of
    // the raw string, and parsed whole into what a tool writes. Redacted again once parsed.
    const parsed: unknown = JSON.parse(call.function.arguments || '{}', (_key, value: unknown) => (typeof value === 'string' ? redactKnown(value) : value));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) args = parsed as Record<string, unknown>;
  } catch {
    // Malformed arguments reach the tool as none; it answers the model with what is missing.
  }
  return { id: call.id, name: call.function.name, args };
}

/** Any OpenAI-compatible chat-completions endpoint: OpenAI, Ollama, vLLM, LM Studio, llama.cpp. */
export class OpenAiProvider implements Provider {
  readonly name = 'openai';

  constructor(private readonly settings: OpenAiSettings) {}

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    const { baseUrl, apiKey, temperature, maxTokens, topP } = this.settings;
    const model = request.model ?? this.settings.agentModels?.[request.agent] ?? this.settings.model;
    const url = `${baseUrl.replace(/\/+$/, '')}/chat/completions`;
    const body = {
      model,
      messages: request.messages.map(toWire),
      temperature,
      max_tokens: maxTokens,
      top_p: topP,
      // Streamed, so a person sees the answer arrive; it is taken whole all the same (see OpenAiStream).
      stream: this.settings.stream !== false,
      ...(this.settings.stream !== false ? { stream_options: { include_usage: true } } : {}),
      tools: request.tools?.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } })),
    };
    const post: JsonPost = {
      url,
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      body,
      signal: request.signal,
      provider: 'openai',
      endpoint: baseUrl,
      unreachableHint: this.settings.unreachableHint ?? 'check runtime.host and that the server is running',
    };
    const response = await openResponse(post);
    let parsed: ChatCompletion;
    if (isEventStream(response)) {
      const deltas = watchedDeltas(request.onDelta);
      const stream = new OpenAiStream(url, deltas.onDelta);
      await readEventStream(response, post, stream, deltas);
      const whole = stream.result();
      // [DONE] and nothing before it: no answer (as a JSON one without content, retried), not an empty one journaled as the step's.
      if (whole.finish_reason === undefined && !whole.content && !whole.tool_calls.length && !whole.refusal) throw new ProviderError(`${url} streamed no answer: no text, no tool call and no finish_reason before [DONE]`, true);
      // The keys in use leave the answer as they leave a JSON one (post-json.ts): whole, once it is
      // whole — every string of it, a call's id and name too (a server echoing the key in an id put it in the conversation's blob).
      const toolCalls = whole.tool_calls.map((call) => ({ ...call, id: redactKnown(call.id), function: { name: redactKnown(call.function.name), arguments: redactKnown(call.function.arguments) } }));
      parsed = { choices: [{ message: { content: redactKnown(whole.content), refusal: whole.refusal === undefined ? null : redactKnown(whole.refusal), ...(toolCalls.length ? { tool_calls: toolCalls } : {}) }, finish_reason: whole.finish_reason ?? null }], usage: whole.usage };
    } else parsed = (await readJson(response, post)) as ChatCompletion;
    const choice = parsed.choices?.[0];
    const message = choice?.message;
    if (message?.refusal) throw declined(url, 'refusal', message.refusal);
    if (choice?.finish_reason === 'content_filter') throw declined(url, 'content_filter', message?.content ?? '');
    const usage = { input: parsed.usage?.prompt_tokens ?? 0, output: parsed.usage?.completion_tokens ?? 0 };
    const cutShort = choice?.finish_reason === 'length';
    const cut = cutShort ? { cut: true } : {};
    if (message?.tool_calls?.length) return { text: message.content ?? '', tool_calls: message.tool_calls.map(fromWire), usage, ...cut };
    // Cut before its first word (content null, as the JSON answer says it): as empty as a stream says it, not a broken answer retried.
    if (typeof message?.content !== 'string' && cutShort) return { text: '', usage, cut: true };
    if (typeof message?.content !== 'string') throw new ProviderError(`${url} answered without choices[0].message.content`, true);
    return { text: message.content, usage, ...cut };
  }
}
