import type { TokenUsage } from './events.js';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface CompletionRequest {
  agent: string;
  /** 0-based index of the step in the chain. */
  step: number;
  /** 1-based attempt number of this step, counted across resumes. */
  attempt: number;
  messages: ChatMessage[];
  /** Template variables of this step, for providers that template their own answers. */
  context: Readonly<Record<string, unknown>>;
  signal: AbortSignal;
}

export interface CompletionResult {
  text: string;
  /** Tokens exactly as the provider reports them. */
  usage: TokenUsage;
}

/** The engine's port to a model: scripted, OpenAI-compatible, Anthropic, agent CLIs. */
export interface Provider {
  readonly name: string;
  complete(request: CompletionRequest): Promise<CompletionResult>;
}
