import type { StepId } from './step-id.js';
import type { TokenUsage } from './events.js';

/** A tool the model may call, described as OpenAI function tools are (JSON Schema parameters). */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; tool_calls?: ToolCall[] }
  | { role: 'tool'; tool_call_id: string; name: string; content: string };

export interface CompletionRequest {
  agent: string;
  /** The step's id ("0" for a chain's first step, a task id, `branch/n` …). */
  step: StepId;
  /** 1-based attempt number of this step, counted across resumes. */
  attempt: number;
  messages: ChatMessage[];
  /** Template variables of this step, for providers that template their own answers. */
  context: Readonly<Record<string, unknown>>;
  /** Tools the agent may call; the answer then holds tool calls instead of (or beside) text. */
  tools?: readonly ToolSpec[];
  /** `summary`: acode asks for a summary of a conversation that outgrew the context (not a step call). */
  purpose?: 'step' | 'summary';
  /** Another model of the same provider for this request than the agent's (context_policy.compaction.summarization_model). */
  model?: string;
  signal: AbortSignal;
  /**
   * Told of the answer as it arrives (a streaming provider). Only for watching: what is told may be
   * cut short by a failure and asked again, and the result that `complete` resolves to is the answer.
   * A promise: the one watching cannot take more yet (its output is full); a streaming provider
   * reads no more of the answer off its connection until it settles.
   */
  onDelta?: (delta: CompletionDelta) => void | Promise<void>;
}

/**
 * A piece of an answer still arriving, raw as the model sent it (whoever shows it redacts it):
 * text, or a tool call whose name is known while its arguments still stream.
 */
export type CompletionDelta = { kind: 'text'; text: string } | { kind: 'tool_call'; name: string };

export interface CompletionResult {
  text: string;
  /** Present when the model asks for tools; the agent loop runs them and calls the model again. */
  tool_calls?: ToolCall[];
  /** Tokens exactly as the provider reports them. */
  usage: TokenUsage;
  /**
   * The answer stopped at the output limit (OpenAI's finish_reason `length`, Anthropic's stop_reason
   * `max_tokens`): cut short, not finished. Taken as it is — asked again, the same input is cut
   * the same way — and marked wherever it shows.
   */
  cut?: boolean;
}

/** The engine's port to a model: scripted, OpenAI-compatible, Anthropic, agent CLIs. */
export interface Provider {
  readonly name: string;
  complete(request: CompletionRequest): Promise<CompletionResult>;
  /**
   * Test and demo hook (scripted provider only): how a file_write of this step and attempt dies,
   * simulating a writer killed mid-write.
   */
  writeCrash?(step: StepId, attempt: number): WriteCrash | undefined;
}

/**
 * A file_write killed mid-write (scripted faults). torn: an in-place writer dies after `after_bytes`
 * bytes · before_rename: the atomic writer dies once its temp file is whole, before the rename.
 */
export type WriteCrash = { at: 'torn'; after_bytes: number } | { at: 'before_rename' };
