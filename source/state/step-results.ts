import { addUsage, modelCall, type EngineEvent, type StepPrompt, type TokenUsage } from '../engine/events.js';
import type { StepId } from '../engine/step-id.js';

/** One tool call a step's agent made, and what it answered (null while no answer was journaled). */
export interface StepToolCall {
  attempt: number;
  call_id: string;
  name: string;
  /** As logged: long strings (file contents) are their size and hash. */
  args: Record<string, unknown>;
  ok: boolean | null;
  /** The start of the answer, as the event shows it (the whole answer is in `output_blob` when longer). */
  output: string | null;
  output_blob: string | null;
}

/** What a stored session's step did: every attempt's model calls, time and tool calls, and its answer. */
export interface StepResult {
  id: StepId;
  /** The attempt started last; 0 when it never started (a reused step). */
  attempt: number;
  /** Every model call of every attempt: the steps of a session add up to its total. */
  tokens: TokenUsage;
  /** Each of those calls' tokens: a price tier applies per request, so dollars are summed call by call. */
  calls: TokenUsage[];
  /** Time its attempts ran, from their events' timestamps (waits between attempts and runs not counted). */
  elapsed_ms: number;
  /** Its whole response once completed (or reused); null before. */
  response: string | null;
  /** The response stopped at the model's output limit (step_completed's `cut`). */
  cut: boolean;
  /** The prompt its last attempt started from, as rendered (system and input); null where the log has none. */
  prompt: StepPrompt | null;
  tools: StepToolCall[];
  /** What an agent CLI step said it cost (claude's total_cost_usd), summed over its attempts; null for model steps, which are priced from their tokens. */
  reported_usd: number | null;
}

/** The part of a step's result a fold keeps open: when its attempt started and last did something. */
interface OpenAttempt {
  start: number;
  last: number;
}

/** Folds a session's events, in replay order, into each step's result. */
export class StepResultsFold {
  readonly results = new Map<StepId, StepResult>();
  private readonly open = new Map<StepId, OpenAttempt>();
  /** Steps an agent CLI ran: their cost is the one the CLI reported. */
  private readonly cli = new Set<StepId>();

  private of(step: StepId): StepResult {
    let result = this.results.get(step);
    if (!result) this.results.set(step, (result = { id: step, attempt: 0, tokens: { input: 0, output: 0 }, calls: [], elapsed_ms: 0, response: null, cut: false, prompt: null, tools: [], reported_usd: null }));
    return result;
  }

  private close(step: StepId): void {
    const attempt = this.open.get(step);
    if (!attempt) return;
    this.of(step).elapsed_ms += Math.max(0, attempt.last - attempt.start);
    this.open.delete(step);
  }

  apply(event: EngineEvent): void {
    const at = Date.parse(event.ts);
    const step = 'step' in event && typeof event.step === 'string' ? event.step : undefined;
    // A new attempt ends the one before at that one's last event: the wait in between is no one's time.
    if (step !== undefined && event.type !== 'step_started') {
      const attempt = this.open.get(step);
      if (attempt && at > attempt.last) attempt.last = at;
    }
    // Only the events that say what a step did; the rest leave its result as it is.
    const call = modelCall(event);
    if (call) {
      const result = this.of(call.step);
      result.tokens = addUsage(result.tokens, call.usage);
      result.calls.push(call.usage);
    }
    // The owner taken over from was alive until its last heartbeat: a step it was killed in ran until then at least.
    if (event.type === 'lock_taken_over' && typeof event.previous_heartbeat_at === 'string') this.aliveUntil(Date.parse(event.previous_heartbeat_at));
    if (event.type === 'step_started') {
      this.close(event.step);
      this.of(event.step).attempt = event.attempt;
      // Read as the log holds it: a damaged line's prompt of another shape is no prompt.
      if (typeof event.prompt?.system === 'string' && typeof event.prompt.input === 'string') this.of(event.step).prompt = { system: event.prompt.system, input: event.prompt.input };
      this.open.set(event.step, { start: at, last: at });
    } else if (event.type === 'agent_cli_started') {
      this.cli.add(event.step);
    } else if (event.type === 'step_completed') {
      Object.assign(this.of(event.step), { response: event.response, cut: event.cut === true });
      // An agent CLI's own price for the step (a model step's cost_usd is its last call's only: those are priced from their calls).
      if (this.cli.has(event.step) && typeof event.cost_usd === 'number') this.of(event.step).reported_usd = (this.of(event.step).reported_usd ?? 0) + event.cost_usd;
      this.close(event.step);
    } else if (event.type === 'step_reused') {
      Object.assign(this.of(event.step), { response: event.response, cut: event.cut === true });
    } else if (event.type === 'step_failed') {
      this.close(event.step);
    } else if (event.type === 'tool_called') {
      this.of(event.step).tools.push({ attempt: event.attempt, call_id: event.call_id, name: event.name, args: event.args, ok: null, output: null, output_blob: null });
    } else if (event.type === 'tool_result') {
      const call = this.of(event.step).tools.findLast((tool) => tool.call_id === event.call_id);
      if (call) Object.assign(call, { ok: event.ok, output: event.output, output_blob: event.output_blob ?? null });
    } else if (event.type === 'tool_effect_recovered' && event.output !== undefined) {
      // A call a crash cut off, taken as not done: what the model was told stands as its result.
      const call = this.of(event.step).tools.findLast((tool) => tool.call_id === event.call_id);
      if (call) Object.assign(call, { ok: false, output: event.output, output_blob: null });
    }
  }

  /** Attempts still open ran at least until `at` (when their process was last known alive), if that is later than their last event. */
  private aliveUntil(at: number): void {
    if (Number.isNaN(at)) return;
    for (const attempt of this.open.values()) if (at > attempt.last) attempt.last = at;
  }

  /**
   * The results, with the attempts still open counted up to their last event — or to `aliveUntil`,
   * when the process that ran them was known alive later (a stale lock's last heartbeat; now, for a
   * live one): a killed step had shown 0.0s.
   */
  finish(aliveUntil?: number): Map<StepId, StepResult> {
    if (aliveUntil !== undefined) this.aliveUntil(aliveUntil);
    for (const step of [...this.open.keys()]) this.close(step);
    return this.results;
  }
}

/** How a response cut at the model's output limit is marked, wherever a step's result shows. */
export const cutText = 'answer cut at max_tokens';

/** The first line of a response with text on it, for one-line listings. */
export function firstLine(response: string | null): string {
  return response?.split('\n').find((line) => line.trim())?.trim() ?? '';
}
