import type { ChatMessage, CompletionRequest, CompletionResult, Provider, ToolCall } from '../engine/provider.js';
import { ProviderError, StepAbortedError } from '../engine/stop-errors.js';
import { classifyHttpFailure } from './failure-classifier.js';

export interface OpenAiSettings {
  /** Base URL ending before /chat/completions, e.g. http://127.0.0.1:8080/v1. */
  baseUrl: string;
  model: string;
  /** Per-agent `model_id` overrides from the spec's agents. */
  agentModels?: Readonly<Record<string, string>>;
  /** Read from the environment at call time; never stored. */
  apiKey?: string;
  temperature?: number;
  maxTokens?: number;
  topP?: number;
}

interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

interface ChatCompletion {
  choices?: { message?: { content?: string | null; tool_calls?: WireToolCall[] } }[];
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
    const parsed: unknown = JSON.parse(call.function.arguments || '{}');
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
    const model = this.settings.agentModels?.[request.agent] ?? this.settings.model;
    const url = `${baseUrl.replace(/\/+$/, '')}/chat/completions`;
    const body = {
      model,
      messages: request.messages.map(toWire),
      temperature,
      max_tokens: maxTokens,
      top_p: topP,
      stream: false,
      tools: request.tools?.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } })),
    };
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
        body: JSON.stringify(body),
        signal: request.signal,
      });
    } catch (error) {
      if (request.signal.aborted) throw new StepAbortedError();
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
      throw new ProviderError(`cannot reach ${url} (${cause}); check runtime.host or OPENAI_BASE_URL and that the server is running`, true);
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      if (request.signal.aborted) throw new StepAbortedError();
      throw new ProviderError(`connection to ${url} broke while reading the answer: ${(error as Error).message}`, true);
    }
    if (!response.ok) throw this.failure(response, text);

    let parsed: ChatCompletion;
    try {
      parsed = JSON.parse(text) as ChatCompletion;
    } catch {
      throw new ProviderError(`${url} answered with something that is not JSON: ${text.slice(0, 120)}`, true);
    }
    const message = parsed.choices?.[0]?.message;
    const usage = { input: parsed.usage?.prompt_tokens ?? 0, output: parsed.usage?.completion_tokens ?? 0 };
    if (message?.tool_calls?.length) return { text: message.content ?? '', tool_calls: message.tool_calls.map(fromWire), usage };
    if (typeof message?.content !== 'string') throw new ProviderError(`${url} answered without choices[0].message.content`, true);
    return { text: message.content, usage };
  }

  private failure(response: Response, body: string): Error {
    return classifyHttpFailure({ provider: 'openai', status: response.status, headers: response.headers, body, endpoint: this.settings.baseUrl });
  }
}
