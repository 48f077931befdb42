import { describe, expect, it } from 'vitest';
import { unenforceableCap } from '../../source/session/cost-cap.js';
import { loadSpecText } from '../../source/spec/load-spec.js';

const spec = (extra: string) => `version: 0
name: capped
runtime:
  provider: openai
  model_id: gpt-4o-mini
  budgets: { max_cost_usd: 1 }
${extra}agents:
  writer: { prompt: "You write." }
pattern:
  type: chain
  config:
    steps:
      - { agent: writer, input: "write" }
`;

describe('a spending cap acode can enforce', () => {
  it('holds for models the price table knows', async () => {
    expect(await unenforceableCap(loadSpecText(spec(''), 'spec.yaml').spec)).toBeUndefined();
  });

  it('does not hold when the summaries run on a model acode cannot price', async () => {
    const why = await unenforceableCap(loadSpecText(spec('context_policy:\n  compaction: { summarization_model: my-distilled-model }\n'), 'spec.yaml').spec);
    expect(why).toContain("'writer' (openai my-distilled-model, its summaries: context_policy.compaction.summarization_model)");
  });
});
