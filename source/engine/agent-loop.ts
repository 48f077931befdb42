import type { StepId } from './step-id.js';
import type { WorkflowSpec } from '../spec/schema.js';
import { sha256, type BlobStore } from './blob-store.js';
import { redactKnown } from '../secrets/redactor.js';
import { saveConversation } from './conversation.js';
import { compactIfDue } from './compaction.js';
import type { EngineEventBody } from './events.js';
import type { Journal } from './journal.js';
import type { ChatMessage, CompletionDelta, CompletionResult, Provider, ToolCall } from './provider.js';
import type { RecordedToolOutcome } from './session-progress.js';
import type { Notify } from './step-notice.js';
import { ProviderError, StepAbortedError } from './stop-errors.js';
import { agentToolNames, agentTools, allowedHosts, extraRoots } from './tools/agent-tools.js';
import { runTool } from './tools/tool-runner.js';
import type { HttpExecutor } from './tools/http-executors.js';
import { writeResultText } from './tools/write-result.js';

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
  step: StepId;
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
  /** Names the temp files the tools leave if the process dies mid-write, so a resume can find them. */
  sessionId?: string;
  emit(body: EngineEventBody): void;
  /** False once another process took the session over (Journal.stillOwned). */
  stillOwned?: () => boolean;
  /** What the journal holds for a tool call of the unfinished round (see SessionProgress.tool_outcomes). */
  recorded?(callId: string): RecordedToolOutcome | undefined;
  /** Its flush makes what the journal holds durable before each model call (Journal.flush). */
  journal?: Pick<Journal, 'flush'>;
  /** Told of the answer as it streams in (absent: nobody watches, so the provider is not asked to tell); a promise: see NoticeListener. */
  notify?: Notify;
  /** Before each model call of the loop (a summary's too): throws to stop the step there (a budget reached). */
  beforeCall?(): void;
  /** The spec's HTTP executors by id, ready to send. */
  executors?: ReadonlyMap<string, HttpExecutor>;
}

/** Outputs longer than this go to a blob; the event keeps this much for display. */
const shownOutputChars = 2000;

/** The tool calls of the conversation's last model answer that no tool message answers yet. */
function unansweredCalls(messages: readonly ChatMessage[]): ToolCall[] {
  const at = messages.findLastIndex((m) => m.role === 'assistant');
  const answer = messages[at];
  if (answer?.role !== 'assistant' || !answer.tool_calls?.length) return [];
  const answered = new Set(messages.slice(at + 1).flatMap((m) => (m.role === 'tool' ? [m.tool_call_id] : [])));
  return answer.tool_calls.filter((call) => !answered.has(call.id));
}

/**
 * The calls with ids unique in the conversation: some servers (llama.cpp, vLLM, older Ollama) send
 * an empty id, or the same one twice. Each call's result is journaled and replayed by its id, so
 * two calls sharing one would share a result. A replacement is derived from the conversation's
 * length and the call's place, and saved with the answer before any tool runs.
 */
function uniqueCallIds(calls: readonly ToolCall[], messages: readonly ChatMessage[]): ToolCall[] {
  const used = new Set(messages.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.id) : [])));
  return calls.map((call, i) => {
    let id = call.id;
    for (let n = 0; !id || used.has(id); n++) id = `call_${messages.length}_${i}${n ? `_${n}` : ''}`;
    used.add(id);
    return id === call.id ? call : { ...call, id };
  });
}

/** Runs one tool call and journals its call and its whole result. */
async function runCall(call: ToolCall, turn: AgentTurn, deps: AgentLoopDeps): Promise<string> {
  const { provider, spec, cwd, blobs, emit } = deps;
  emit({ type: 'tool_called', step: turn.step, attempt: turn.attempt, call_id: call.id, name: call.name, args: summarizeArgs(call.args) });
  const outcome = await runTool(call, {
    step: turn.step,
    attempt: turn.attempt,
    cwd,
    extraRoots: extraRoots(spec),
    blobs,
    emit,
    sessionId: deps.sessionId,
    stillOwned: deps.stillOwned,
    tools: agentToolNames(spec, turn.agent),
    allowHosts: allowedHosts(spec),
    signal: deps.signal,
    executors: deps.executors,
    crash: call.name === 'file_write' ? provider.writeCrash?.(turn.step, turn.attempt) : undefined,
  });
  journalResult(call, outcome.ok, outcome.output, turn, deps);
  return outcome.output;
}

function journalResult(call: ToolCall, ok: boolean, output: string, turn: AgentTurn, deps: AgentLoopDeps): void {
  // JSON keeps the string exactly, even a lone surrogate that a cut left behind (UTF-8 would not).
  // An output the event would show redacted (a file holding the key was read) is kept whole in a
  // blob as well — blobs are exact copies, like the read's own snapshot — so that a resumed round
  // gives the model exactly what it got the first time.
  const long = output.length > shownOutputChars || redactKnown(output) !== output;
  const outputBlob = long ? deps.blobs.put(Buffer.from(JSON.stringify(output))) : null;
  deps.emit({ type: 'tool_result', step: turn.step, attempt: turn.attempt, call_id: call.id, name: call.name, ok, output: long ? output.slice(0, shownOutputChars) : output, output_blob: outputBlob });
}

/**
 * A call's result from the journal, if it has one: exactly what the model got (no tool runs again),
 * or, for a write that was applied before the process died, what the write would have answered.
 */
function replayedResult(call: ToolCall, turn: AgentTurn, deps: AgentLoopDeps): string | undefined {
  const recorded = deps.recorded?.(call.id);
  if (!recorded) return undefined;
  if (recorded.kind === 'result') return recorded.output_blob ? (JSON.parse(deps.blobs.get(recorded.output_blob).toString('utf8')) as string) : recorded.output;
  const output = writeResultText(deps.cwd, recorded.path, Buffer.byteLength(String(call.args.content)), recorded.already);
  journalResult(call, true, output, turn, deps);
  return output;
}

/**
 * Answers `calls` (a model answer's tool calls) into `messages`, then saves the whole round. A
 * round runs to its end even after Ctrl+C (its tools are local and quick); the next model call stops.
 */
async function finishRound(calls: readonly ToolCall[], turn: AgentTurn, deps: AgentLoopDeps): Promise<void> {
  for (const call of calls) {
    const content = replayedResult(call, turn, deps) ?? (await runCall(call, turn, deps));
    turn.messages.push({ role: 'tool', tool_call_id: call.id, name: call.name, content });
  }
  // The round's model call was counted when its answer was saved.
  deps.emit({ type: 'conversation_saved', step: turn.step, attempt: turn.attempt, blob: saveConversation(deps.blobs, turn.messages), messages: turn.messages.length, usage: { input: 0, output: 0 } });
}

/**
 * One attempt of a step: model → tool calls → results → model … until the model answers without
 * tools. A model answer with tool calls is saved before any tool runs, so it is never asked (and
 * paid for) again; every call and its whole result is an event, file writes go through the
 * write-ahead journal, and the conversation is saved again once the round's results are in. A
 * resume or retry of a conversation that ends mid-round first finishes that round from the journal.
 * `turn.messages` is kept up to date as the conversation grows (the caller reads it on failure).
 */
export async function agentLoop(turn: AgentTurn, deps: AgentLoopDeps): Promise<CompletionResult> {
  const { provider, spec, blobs, signal, emit } = deps;
  const tools = agentTools(spec, turn.agent);
  const { messages } = turn;
  const unfinished = unansweredCalls(messages);
  if (unfinished.length) await finishRound(unfinished, turn, deps);
  for (let round = 1; ; round++) {
    if (round > maxToolRounds) throw new ProviderError(`the agent asked for tools ${maxToolRounds} times without answering; stopping this step`, false);
    if (signal.aborted) throw new StepAbortedError();
    // A budget reached stops here, the round before saved; then a conversation near the model's limit is compacted (context_policy.compaction).
    deps.beforeCall?.();
    await compactIfDue(turn, deps, spec);
    // What the last round journaled (its saved answer, its tool results) is durable before the next call: no power cut makes a resume ask for it again.
    await deps.journal?.flush?.();
    // A response that arrives after Ctrl+C is kept: it is paid for and complete.
    const { notify } = deps;
    const onDelta = notify
      ? (delta: CompletionDelta) => notify(delta.kind === 'text' ? { type: 'step_text', step: turn.step, attempt: turn.attempt, text: delta.text } : { type: 'step_tool_call', step: turn.step, attempt: turn.attempt, name: delta.name })
      : undefined;
    const result = await provider.complete({ agent: turn.agent, step: turn.step, attempt: turn.attempt, context: turn.context, messages, tools: tools.length ? tools : undefined, purpose: 'step', signal, onDelta });
    // Each tool round's tokens are counted with its saved answer, the last one's with the step.
    if (!result.tool_calls?.length) return { text: result.text, usage: result.usage, ...(result.cut ? { cut: true } : {}) };
    const calls = uniqueCallIds(result.tool_calls, messages);
    messages.push({ role: 'assistant', content: result.text, tool_calls: calls });
    emit({ type: 'conversation_saved', step: turn.step, attempt: turn.attempt, blob: saveConversation(blobs, messages), messages: messages.length, usage: result.usage });
    await finishRound(calls, turn, deps);
  }
}
