import { describe, expect, it } from 'vitest';
import { formatDollars, jsonDollars, loadPriceTable, pricerFor, stepPricer, totalDollars } from '../../source/state/step-cost.js';

describe('step prices', () => {
  it('prices a step by its agent own model, else the run model', async () => {
    const table = await loadPriceTable();
    const price = stepPricer({ runtime: { provider: 'openai', model_id: 'gpt-4o-mini' }, agents: { writer: { model_id: 'gpt-4o' }, local: { model_id: 'my-finetune' } } }, table);
    const usage = { input: 1_000_000, output: 1_000_000 };
    expect(price('researcher', usage)).toBeCloseTo(0.75, 9);
    expect(price('writer', usage)).toBeGreaterThan(price('researcher', usage)!);
    expect(price('local', usage)).toBeUndefined();
    expect(price('local', { input: 0, output: 0 })).toBe(0);
  });

  it('gives --json dollars rounded to what a price means, without float noise', async () => {
    const price = stepPricer({ runtime: { provider: 'openai', model_id: 'gpt-4o-mini' }, agents: { a: {} } }, await loadPriceTable());
    const raw = price('a', { input: 1, output: 4 })!; // $0.15 and $0.60 a million
    expect(String(raw)).not.toBe('0.00000255'); // 0.0000025499999999999997 as floats add it up
    // Rounded to a millionth of a dollar: an estimate from a table priced per million tokens means nothing finer.
    expect(jsonDollars(raw)).toBe(0.000003);
    expect(jsonDollars(0.000024149999999999997)).toBe(0.000024);
    expect(jsonDollars(0.1 + 0.2)).toBe(0.3);
    expect(jsonDollars(12.5)).toBe(12.5);
    expect(jsonDollars(undefined)).toBeNull();
  });

  it('gives no price for the scripted provider or a local server, without loading the table', async () => {
    expect(await pricerFor({ runtime: { provider: 'scripted', model_id: 'gpt-4o-mini' }, agents: { a: {} } })).toBeUndefined();
    expect(await pricerFor({ runtime: { provider: 'ollama', model_id: 'gpt-4o-mini' }, agents: {} })).toBeUndefined();
  });

  it('leaves a total unpriced when one of its steps is', async () => {
    const price = stepPricer({ runtime: { provider: 'anthropic', model_id: 'claude-sonnet-4-5' }, agents: { other: { model_id: 'unknown-model' } } }, await loadPriceTable());
    const usage = { input: 1000, output: 1000 };
    expect(totalDollars([{ agent: 'a', usage }], price)).toBeCloseTo((1000 * 3 + 1000 * 15) / 1e6, 9);
    expect(totalDollars([{ agent: 'a', usage }, { agent: 'other', usage }], price)).toBeUndefined();
  });

  it('shows dollars with the digits that say something', () => {
    expect(formatDollars(0)).toBe('≈ $0');
    expect(formatDollars(0.31)).toBe('≈ $0.31');
    expect(formatDollars(0.042)).toBe('≈ $0.042');
    expect(formatDollars(12.4)).toBe('≈ $12.40');
    expect(formatDollars(0.00045)).toBe('≈ $0.00045');
  });
});
