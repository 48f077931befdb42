import type { WorkflowSpec } from '../spec/schema.js';
import { sha256, type BlobStore } from './blob-store.js';
import { saveConversation } from './conversation.js';
import type { EngineEventBody } from './events.js';
import type { ChatMessage, CompletionResult, Provider } from './provider.js';
import { ProviderError, StepAbortedError } from './stop-errors.js';
import { agentTools, extraRoots } from './tools/agent-tools.js';
import { runTool } from './tools/tool-runner.js';

/** Model calls per step attempt before the agent is stopped: no loop runs unbounded. */
const maxToolRounds = 25;

/** Tool arguments as logged: long strings (file contents) become their size and hash. */
function summarizeArgs(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(args).map(([key, value]) => (typeof value === 'string' && value.length > 200 ? [key, { bytes: Buffer.byteLength(value), sha256: sha256(value) }] : [key, value])),
  );
}

export interface AgentTurn {
  agent: string;
  step: number;
  attempt: number;
  /** Where the conversation stands: the step's prompt, or a saved conversation to continue. */
  messages: ChatMessage[];
  context: Record<string, unknown>;
}

export interface AgentLoopDeps {
  provider: Provider;
  spec: WorkflowSpec;
  cwd: string;
  blobs: BlobStore;
  signal: AbortSignal;
  emit(body: EngineEventBody): void;
  /** False once another process took the session over (Journal.stillOwned). */
  stillOwned?: () => boolean;
}

/**
 * One attempt of a step: model → tool calls → results → model … until the model answers without
 * tools. Every call and result is an event, file writes go through the write-ahead journal, and
 * after each full round the conversation is saved, so that a retry or a resume continues it.
 * `turn.messages` is kept up to date as the conversation grows (the caller reads it on failure).
 */
export async function agentLoop(turn: AgentTurn, deps: AgentLoopDeps): Promise<CompletionResult> {
  const { provider, spec, cwd, blobs, signal, emit } = deps;
  const tools = agentTools(spec, turn.agent);
  const { messages } = turn;
  for (let round = 1; ; round++) {
    if (round > maxToolRounds) throw new ProviderError(`the agent asked for tools ${maxToolRounds} times without answering; stopping this step`, false);
    if (signal.aborted) throw new StepAbortedError();
    // A response that arrives after Ctrl+C is kept: it is paid for and complete.
    const result = await provider.complete({ agent: turn.agent, step: turn.step, attempt: turn.attempt, context: turn.context, messages, tools: tools.length ? tools : undefined, purpose: 'step', signal });
    // Each round's tokens are counted with its saved conversation, the last one's with the step.
    if (!result.tool_calls?.length) return { text: result.text, usage: result.usage };
    const round_: ChatMessage[] = [{ role: 'assistant', content: result.text, tool_calls: result.tool_calls }];
    // A round runs to its end even after Ctrl+C (its tools are local and quick): a saved round is
    // always whole, so a resume never redoes tools that already ran. The next model call stops.
    for (const call of result.tool_calls) {
      emit({ type: 'tool_called', step: turn.step, attempt: turn.attempt, call_id: call.id, name: call.name, args: summarizeArgs(call.args) });
      const outcome = await runTool(call, {
        step: turn.step,
        attempt: turn.attempt,
        cwd,
        extraRoots: extraRoots(spec),
        blobs,
        emit,
        stillOwned: deps.stillOwned,
        crashAfterBytes: call.name === 'file_write' ? provider.writeCrashAfterBytes?.(turn.step, turn.attempt) : undefined,
      });
      emit({ type: 'tool_result', step: turn.step, attempt: turn.attempt, call_id: call.id, name: call.name, ok: outcome.ok, output: outcome.output.slice(0, 2000) });
      round_.push({ role: 'tool', tool_call_id: call.id, name: call.name, content: outcome.output });
    }
    // Only whole rounds are kept: a model answer whose tool results are all in.
    messages.push(...round_);
    emit({ type: 'conversation_saved', step: turn.step, attempt: turn.attempt, blob: saveConversation(blobs, messages), messages: messages.length, usage: result.usage });
  }
}
