import { createHash } from 'node:crypto';
import { chainIndex, stepTitle, type StepId } from '../engine/step-id.js';
import { abortableSleep } from '../engine/abortable-sleep.js';
import type { CompletionRequest, CompletionResult, Provider, ToolCall, WriteCrash } from '../engine/provider.js';
import { ContextExhaustedError, ProviderError, RateLimitError } from '../engine/stop-errors.js';
import type { ScriptedFault, ScriptedSpec } from '../spec/schema.js';
import { renderTemplate } from '../spec/template.js';

const words = 'durable agent step checkpoint resume chain token model context session event replay plan write read'.split(' ');

/** Deterministic filler text of exactly `bytes` bytes, seeded by `seed`. */
function filler(seed: string, bytes: number): string {
  if (bytes <= 0) return '';
  let state = createHash('sha256').update(seed).digest().readUInt32LE(0);
  let text = '';
  while (text.length < bytes) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    text += `${words[state % words.length]} `;
  }
  return text.slice(0, bytes);
}

/** Rough tokens for text the scripted model "reads" or "writes": ~4 characters a token. */
function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** A fault's `step`: a chain index (number), or a step id ("overview", "web/0"). */
function faultMatches(fault: ScriptedFault, step: StepId): boolean {
  return typeof fault.step === 'number' ? fault.step === chainIndex(step) : fault.step === step;
}

/**
 * An offline, deterministic model for demos, tests and benchmarks: the same input always gives
 * the same answer, so an interrupted-and-resumed run can be compared byte for byte with a clean one.
 */
export class ScriptedProvider implements Provider {
  readonly name = 'scripted';
  private readonly settings: ScriptedSpec;

  constructor(settings: ScriptedSpec | undefined) {
    this.settings = settings ?? { latency_ms: 0, response_bytes: 0, responses: {}, faults: [] };
  }

  private faultFor(request: CompletionRequest): ScriptedFault | undefined {
    return this.settings.faults.find((fault) => {
      const matches = faultMatches(fault, request.step);
      // A crash fires on the first attempt only, so a resume gets past it.
      const limit = fault.kind === 'crash' ? 1 : fault.times;
      const round = 1 + request.messages.filter((m) => m.role === 'assistant').length;
      return matches && request.attempt <= limit && (fault.round === undefined || fault.round === round);
    });
  }

  /** A deterministic stand-in for a model's summary of a conversation that outgrew the context. */
  private summary(request: CompletionRequest): CompletionResult {
    const input = request.messages.map((m) => m.content).join('\n');
    const text = `Summary of the work so far (${input.length} characters, ${createHash('sha256').update(input).digest('hex').slice(0, 12)}).`;
    return { text, usage: { input: estimateTokens(input), output: estimateTokens(text) } };
  }

  writeCrash(step: StepId, attempt: number): WriteCrash | undefined {
    const fault = this.settings.faults.find((f) => f.kind === 'crash' && (f.during === 'file_write' || f.during === 'file_write_rename') && attempt === 1 && faultMatches(f, step));
    if (!fault) return undefined;
    return fault.during === 'file_write_rename' ? { at: 'before_rename' } : { at: 'torn', after_bytes: fault.after_bytes ?? Number.MAX_SAFE_INTEGER };
  }

  /** Scripted tool calls come first; once their results are in, the scripted answer follows. */
  private scriptedToolCalls(request: CompletionRequest): ToolCall[] | undefined {
    const scripted = this.settings.responses[request.agent];
    if (typeof scripted !== 'object' || scripted.tool_calls.length === 0 || request.messages.at(-1)?.role === 'tool') return undefined;
    return scripted.tool_calls.map((call, i) => ({
      id: `call_${request.step}_${i}`,
      name: call.name,
      args: Object.fromEntries(Object.entries(call.args).map(([key, value]) => [key, typeof value === 'string' ? renderTemplate(value, request.context) : value])),
    }));
  }

  /** Tells the answer in word-sized pieces over the second half of the latency: the demo shows it stream. */
  private async streamed(text: string, request: CompletionRequest): Promise<void> {
    const words = text.match(/\S+\s*|\s+/g) ?? [text];
    const pieces = Math.min(words.length, 24);
    const per = Math.ceil(words.length / pieces);
    for (let i = 0; i < words.length; i += per) {
      void request.onDelta?.({ kind: 'text', text: words.slice(i, i + per).join('') });
      await abortableSleep(this.settings.latency_ms / 2 / pieces, request.signal);
    }
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    if (request.purpose === 'summary') return this.summary(request);
    const fault = this.faultFor(request);
    if (fault?.kind === 'crash' && fault.during === 'call') process.kill(process.pid, 'SIGKILL');
    // Watched, a scripted answer arrives in pieces over its latency, as a model's would (see streamed below).
    const watched = request.onDelta !== undefined && this.settings.latency_ms > 0;
    if (this.settings.latency_ms > 0) await abortableSleep(watched ? this.settings.latency_ms / 2 : this.settings.latency_ms, request.signal);
    if (fault?.kind === 'rate_limit') {
      throw new RateLimitError(fault.message ?? 'scripted rate limit (429)', fault.retry_after_s === undefined ? undefined : fault.retry_after_s * 1000, '429, scripted');
    }
    if (fault?.kind === 'context_exhausted') throw new ContextExhaustedError(fault.message ?? 'scripted context length exceeded');
    if (fault?.kind === 'error') throw new ProviderError(fault.message ?? 'scripted provider error', false);

    const input = request.messages.map((m) => m.content).join('\n');
    const toolCalls = this.scriptedToolCalls(request);
    if (toolCalls) return { text: '', tool_calls: toolCalls, usage: { input: estimateTokens(input), output: estimateTokens(JSON.stringify(toolCalls)) } };
    const scripted = this.settings.responses[request.agent];
    const template = typeof scripted === 'string' ? scripted : scripted?.then;
    const head = template === undefined
      ? `${request.agent} answered ${stepTitle(request.step)} (input ${createHash('sha256').update(input).digest('hex').slice(0, 12)}).`
      : renderTemplate(template, request.context);
    const pad = this.settings.response_bytes - Buffer.byteLength(head) - 1;
    const text = pad > 0 ? `${head}\n${filler(`${request.agent}:${request.step}:${input}`, pad)}` : head;
    if (watched) await this.streamed(text, request);
    return { text, usage: { input: estimateTokens(input), output: estimateTokens(text) } };
  }
}
