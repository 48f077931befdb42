import { describe, expect, it } from 'vitest';
import { shownFirstLineChars, stepFacts } from '../../source/state/step-detail-lines.js';
import type { StepResult } from '../../source/state/step-results.js';

const result = (response: string): StepResult => ({ id: 'eval/1', attempt: 1, tokens: { input: 1, output: 1 }, calls: [{ input: 1, output: 1 }], elapsed_ms: 200, response, cut: false, prompt: null, tools: [], reported_usd: null });

describe("a step's row in sessions show", () => {
  it('says the first line of its response', () => {
    expect(stepFacts({ status: 'done', attempt: 1 }, result('\n  The answer.  \nmore'), undefined).facts.at(-1)).toBe('The answer.');
  });

  // FIXED: a response of one line of a million characters (a model answering JSON without breaks) made each of
  // its rows a line that long: sessions show printed 3.5 MB for three steps; --step shows the whole response.
  it(`shows at most ${shownFirstLineChars} characters of a long first line, marking the cut`, () => {
    const line = stepFacts({ status: 'done', attempt: 1 }, result(`${'x'.repeat(1_000_000)}\nnext`), undefined).facts.at(-1)!;
    expect(line).toBe(`${'x'.repeat(shownFirstLineChars)}…`);
  });
});
