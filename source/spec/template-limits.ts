/**
 * How far one render of one template may go. A spec is someone else's code: without these, one
 * `{% for i in range(1000000000) %}` or `{{ x | center(2000000000) }}` takes the machine's memory
 * and kills the process mid-step, which leaves the session looking interrupted instead of failed.
 * Past a limit the render stops and the step fails naming the limit (a TemplateError).
 */
export const templateLimits = {
  /**
   * Characters in a template's output, in a `{% set %}` block's or a macro's, and in any string
   * built with `~`, `+` or a filter. The largest answer a step keeps is 64 MiB, so any one answer
   * passes through a template whole.
   */
  outputChars: 64 * 1024 * 1024,
  /** Items of one list a template makes: `range(n)`, `| batch(n, fill)`, `| slice(n)`, `| list`. */
  listItems: 1_000_000,
  /**
   * Loop iterations of one render, nested loops counted in full (100 × 2,000 is 200,000). nunjucks
   * spends a few microseconds on each (a million took 2.6 s of it alone): this keeps the worst
   * loop near a second.
   */
  loopIterations: 200_000,
  /** Macros calling macros (a macro calling itself forever meets this, not the stack). */
  macroDepth: 100,
  /** Wall time of one render, for the work the counts above do not see (a filter in a loop). */
  renderMs: 5_000,
} as const;

/** A render went past one of templateLimits; the message names the limit and what to do. */
export class TemplateLimitError extends Error {
  override readonly name = 'TemplateLimitError';
}

/** What one render has used so far; one at a time, since nunjucks renders synchronously. */
export class RenderBudget {
  private iterations = 0;
  private depth = 0;
  private readonly deadline = performance.now() + templateLimits.renderMs;
  /** The limit that stopped the render: nunjucks rewraps what it throws, this keeps it whole. */
  stoppedBy: TemplateLimitError | undefined;

  private stop(message: string): never {
    this.stoppedBy = new TemplateLimitError(message);
    throw this.stoppedBy;
  }

  /** Called often from the render's hooks: a render past its time stops at the next one. */
  tick(): void {
    if (performance.now() > this.deadline) this.stop(`the template took longer than ${templateLimits.renderMs / 1000} s to render (the limit); render less: fewer or smaller loops, filters on smaller values`);
  }

  /** Checks the length one output (the template's, a `{% set %}` block's, a macro's) is growing to. */
  output(chars: number): void {
    if (chars > templateLimits.outputChars) this.stop(`the template wrote more than ${formatCount(templateLimits.outputChars)} characters (the limit for one template); make it write less, e.g. | truncate(n) on long values, fewer loop iterations`);
    this.tick();
  }

  /** Refuses one string longer than the output limit before it is made. */
  size(chars: number, what: string): void {
    const past = tooLong(chars, what);
    if (past) this.stop(past);
    this.tick();
  }

  /** Refuses a list longer than listItems before it is made. */
  items(count: number, what: string): void {
    const past = tooMany(count, what);
    if (past) this.stop(past);
    this.tick();
  }

  /** Counts the iterations of a loop about to start. */
  loop(count: number): void {
    this.iterations += count;
    if (this.iterations > templateLimits.loopIterations) this.stop(`the template's loops ran more than ${formatCount(templateLimits.loopIterations)} times (the limit for one template, nested loops counted in full); loop over less`);
    this.tick();
  }

  enterMacro(name: string): void {
    this.depth += 1;
    if (this.depth > templateLimits.macroDepth) this.stop(`macro '${name}' called macros ${templateLimits.macroDepth} deep (the limit): a macro that calls itself needs a condition that ends it`);
    this.tick();
  }

  leaveMacro(): void {
    this.depth -= 1;
  }
}

/** 67108864 → "64 Mi", 2000000000 → "2,000,000,000": limits read as set, counts exactly. */
function formatCount(n: number): string {
  const mebi = 1024 * 1024;
  return n >= mebi && n % mebi === 0 ? `${n / mebi} Mi` : Math.round(n).toLocaleString('en-US');
}

/** Why `what` making a string of `chars` characters is refused; undefined within the limit. */
export function tooLong(chars: number, what: string): string | undefined {
  return chars > templateLimits.outputChars ? `${what} would make ${formatCount(chars)} characters, past the limit of ${formatCount(templateLimits.outputChars)} for one template` : undefined;
}

/** Why `what` making a list of `count` items is refused; undefined within the limit. */
export function tooMany(count: number, what: string): string | undefined {
  return count > templateLimits.listItems ? `${what} would make ${formatCount(count)} items, past the limit of ${formatCount(templateLimits.listItems)} for one list in a template` : undefined;
}

/** How many numbers nunjucks' range(start, stop, step) makes, computed without making them. */
export function rangeLength(args: readonly unknown[]): number {
  const [first = 0, second = 0, third = 0] = args.map(Number);
  const [start, stop, step] = args[1] === undefined ? [0, first, 1] : [first, second, third || 1];
  const length = Math.ceil((stop - start) / step);
  return Number.isFinite(length) ? Math.max(0, length) : 0;
}

let current: RenderBudget | undefined;

/** Runs one render under a fresh budget; returns the budget with what stopped it, if anything. */
export function withBudget<T>(render: () => T): { value?: T; error?: unknown; budget: RenderBudget } {
  const budget = new RenderBudget();
  const outer = current;
  current = budget;
  try {
    return { value: render(), budget };
  } catch (error) {
    return { error, budget };
  } finally {
    current = outer;
  }
}

/** The budget of the render under way; outside one (a filter called directly) an unlimited-looking fresh one. */
export function budget(): RenderBudget {
  return current ?? new RenderBudget();
}
