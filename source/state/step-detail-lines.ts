import { formatCount, formatDuration } from '../human-units.js';
import type { TokenUsage } from '../engine/events.js';
import { formatDollars } from './step-cost.js';
import { cutText, firstLine, type StepResult, type StepToolCall } from './step-results.js';
import type { SessionStep } from './session-steps.js';
import { stepStateStyle } from './session-steps.js';
import { toolTarget } from '../engine/tools/tool-target.js';
import { terminalText } from '../printable-text.js';

/** "148 in / 41 out", with "≈ $0.0004" when the model is priced. */
export function spendText(tokens: TokenUsage, dollars: number | undefined): string {
  return `${formatCount(tokens.input)} in / ${formatCount(tokens.output)} out${dollars === undefined ? '' : ` ${formatDollars(dollars)}`}`;
}

/**
 * A step's time: an interrupted one's is what its process was last known alive for — at least that
 * ("≥ 14.2s"), or unknown when it was killed before its first heartbeat — never a made-up 0.0s.
 */
function elapsedText(status: SessionStep['status'], ms: number): string {
  if (status !== 'interrupted') return formatDuration(ms);
  return ms > 0 ? `≥ ${formatDuration(ms)}` : 'time unknown (killed)';
}

/** Characters of a response's first line a step's row shows: a model may answer a megabyte without a line break. */
export const shownFirstLineChars = 200;

/** The first line of a response as a row shows it: terminal controls out, cut at shownFirstLineChars (…). */
function shownFirstLine(response: string | null): string {
  // Cut before terminalText reads it, with room for the controls it takes out.
  const line = [...terminalText(firstLine(response).slice(0, shownFirstLineChars * 4))];
  return line.length > shownFirstLineChars ? `${line.slice(0, shownFirstLineChars).join('')}…` : line.join('');
}

/**
 * What a step's row says of it: its state, then — once it started — its attempt, time, tokens
 * (and dollars) and the first line of its response: "done", ["attempt 1", "2.1s", "148 in / 41 out", "The answer…"].
 */
export function stepFacts(step: Pick<SessionStep, 'status' | 'attempt'>, result: StepResult | undefined, dollars: number | undefined): { state: string; facts: string[] } {
  const state = stepStateStyle[step.status].word;
  if (!result || result.attempt === 0) return { state, facts: result?.response ? ['reused', ...(result.cut ? [cutText] : []), shownFirstLine(result.response)] : step.attempt ? [`attempt ${step.attempt}`] : [] };
  const spent = result.tokens.input + result.tokens.output > 0 ? [spendText(result.tokens, dollars)] : [];
  const first = shownFirstLine(result.response);
  return { state, facts: [`attempt ${result.attempt}`, elapsedText(step.status, result.elapsed_ms), ...spent, ...(result.cut ? [cutText] : []), ...(first ? [first] : [])] };
}

const shownOutputLines = 12;

/** One tool call as `sessions show --step` prints it: the call, its outcome, the start of its answer. */
function toolLines(call: StepToolCall, attempts: boolean): string[] {
  const outcome = call.ok === null ? 'no answer journaled' : call.ok ? 'ok' : 'failed';
  const lines = [`  → ${call.name}${toolTarget(call.args)}${attempts ? `  (attempt ${call.attempt})` : ''}  ${outcome}`];
  if (call.output) {
    const output = call.output.split('\n');
    lines.push(...output.slice(0, shownOutputLines).map((line) => `      ${line}`));
    if (output.length > shownOutputLines || call.output_blob) lines.push(`      … (${output.length > shownOutputLines ? `${output.length - shownOutputLines} more lines` : 'more'}; the whole answer is in 'acode sessions history <id> --json')`);
  }
  return lines;
}

/** Text under a heading of the step view, two spaces in; an empty text shows as "(empty)". */
function indented(text: string): string[] {
  return text === '' ? ['  (empty)'] : text.split('\n').map((line) => `  ${line}`);
}

/** `sessions show <id> --step S`: the step's facts, its whole response, then its tool calls — what came from a model or a tool, terminal controls taken out. */
export function stepDetailLines(step: SessionStep, ref: string, result: StepResult | undefined, dollars: number | undefined): string[] {
  const style = stepStateStyle[step.status];
  // A chain step's title is its number again ("step 2"); a task's or branch step's says more.
  const title = step.title === `step ${ref}` ? '' : ` (${step.title})`;
  const header = [`step      ${ref}${title} · ${step.agent}`, `status    ${style.word}`];
  if (result && result.attempt > 0) {
    // No tokens for a step that spent none — an approval asks a person, not a model — as its row says none.
    const spent = result.tokens.input + result.tokens.output > 0 ? [`tokens    ${spendText(result.tokens, dollars)}`] : [];
    header.push(`attempt   ${result.attempt}`, `elapsed   ${elapsedText(step.status, result.elapsed_ms)}`, ...spent);
  }
  if (result?.cut) header.push(`note      ${cutText}`);
  const tools = result?.tools ?? [];
  const attempts = new Set(tools.map((call) => call.attempt)).size > 1;
  const prompt = result?.prompt;
  const lines = [
    ...header,
    // Both sides of the step: what it was asked (as rendered), then what it answered.
    ...(prompt ? ['system prompt', ...indented(prompt.system), 'input', ...indented(prompt.input)] : []),
    'response',
    ...(result?.response === null || result?.response === undefined ? ['  (none yet: the step has not completed)'] : result.response.split('\n').map((line) => `  ${line}`)),
    `tool calls (${tools.length})`,
    ...tools.flatMap((call) => toolLines(call, attempts)),
  ];
  return lines.map(terminalText);
}
