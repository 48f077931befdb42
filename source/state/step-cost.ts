import type { TokenUsage } from '../engine/events.js';
import type { StepPricer } from '../engine/prices.js';

export { loadPriceTable, pricerFor, stepPricer, type PriceTable, type PricedSpec, type StepPricer } from '../engine/prices.js';

/**
 * The dollars of several steps, or undefined unless every step that spent tokens is priced: a sum
 * that silently left out an unpriced model would understate the cost.
 */
export function totalDollars(steps: readonly { agent: string; usage: TokenUsage }[], price: StepPricer | undefined): number | undefined {
  if (!price) return undefined;
  let sum = 0;
  for (const step of steps) {
    const dollars = price(step.agent, step.usage);
    if (dollars === undefined) return undefined;
    sum += dollars;
  }
  return sum;
}

/** A step's dollars priced call by call, as the run priced them (a price tier applies per request); undefined when a call is unpriced. */
export function callsDollars(price: StepPricer | undefined, agent: string, calls: readonly TokenUsage[]): number | undefined {
  return totalDollars(calls.map((usage) => ({ agent, usage })), price);
}

/**
 * Dollars as --json gives them: rounded to a millionth of a dollar (6 decimal places). A price is an
 * estimate from a table quoted per million tokens, so nothing finer means anything; a sum of float
 * products had printed 0.000024149999999999997 for 0.00002415.
 */
export function jsonDollars(dollars: number | undefined): number | null {
  return dollars === undefined ? null : roundDollars(dollars);
}

/** Dollars rounded to a millionth, as JSON and the event log's readers show them. */
export function roundDollars(dollars: number): number {
  return Number(dollars.toFixed(6));
}

/** "≈ $0.042", "≈ $0.31", "≈ $12.40", "≈ $0.00045": an estimate, with the digits that say something. */
export function formatDollars(dollars: number): string {
  if (dollars === 0) return '≈ $0';
  if (dollars >= 0.1) return `≈ $${dollars.toFixed(2)}`;
  if (dollars >= 0.01) return `≈ $${dollars.toFixed(3)}`;
  return `≈ $${Number(dollars.toPrecision(2))}`;
}

/** What skipping a resume's completed steps saved. */
export interface ResumeSaving {
  /** Steps skipped that had spent tokens when they ran. */
  steps: number;
  stepsTotal: number;
  tokens: TokenUsage;
  /** Undefined when some skipped step's model is not priced. */
  dollars: number | undefined;
}

/** No saving yet; dollars start at 0 when there is a price table to add to. */
export function noSaving(stepsTotal: number, price: StepPricer | undefined): ResumeSaving {
  return { steps: 0, stepsTotal, tokens: { input: 0, output: 0 }, dollars: price ? 0 : undefined };
}

/** The saving with one more skipped step, which spent `usage` when it ran (absent in old logs: nothing counted). */
export function savingWith(saving: ResumeSaving, agent: string, usage: TokenUsage | undefined, price: StepPricer | undefined): ResumeSaving {
  if (!usage || usage.input + usage.output === 0) return saving;
  const dollars = saving.dollars === undefined ? undefined : price?.(agent, usage);
  return {
    ...saving,
    steps: saving.steps + 1,
    tokens: { input: saving.tokens.input + usage.input, output: saving.tokens.output + usage.output },
    dollars: dollars === undefined || saving.dollars === undefined ? undefined : saving.dollars + dollars,
  };
}

/** Dollars so far plus one model call's; undefined (unpriced) once any call's model has no price. */
export function dollarsWith(dollars: number | undefined, price: StepPricer | undefined, agent: string, usage: TokenUsage): number | undefined {
  if (dollars === undefined || !price) return undefined;
  const more = price(agent, usage);
  return more === undefined ? undefined : dollars + more;
}

/** "resume saved ≈ $0.31, 2 of 3 steps (12,345 tokens)", or without a price "resume saved 12,345 tokens, 2 of 3 steps". */
export function resumeSavingText(saving: ResumeSaving): string {
  const tokens = (saving.tokens.input + saving.tokens.output).toLocaleString('en-US');
  const steps = `${saving.steps} of ${saving.stepsTotal} step${saving.stepsTotal === 1 ? '' : 's'}`;
  return saving.dollars === undefined ? `resume saved ${tokens} tokens, ${steps}` : `resume saved ${formatDollars(saving.dollars)}, ${steps} (${tokens} tokens)`;
}

/** "this run ≈ $0.042 · resume saved ≈ $0.31, 2 of 3 steps (48,210 tokens)": each part when there is one; "" for neither. */
export function runSpendText(dollars: number | undefined, saving: ResumeSaving | undefined): string {
  const parts = [...(dollars ? [`this run ${formatDollars(dollars)}`] : []), ...(saving && saving.steps > 0 ? [resumeSavingText(saving)] : [])];
  return parts.join(' · ');
}
