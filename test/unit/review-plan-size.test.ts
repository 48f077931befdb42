import { describe, expect, it } from 'vitest';
import { planContinuation } from '../../source/engine/continuation-plan.js';
import { chainPattern } from '../../source/engine/patterns/chain.js';
import { initialProgress } from '../../source/engine/session-progress.js';

/** Hostile review (issue #13): what planning a resume costs as a session grows. */

function planMs(steps: number): number {
  const pattern = chainPattern(Array.from({ length: steps }, (_, i) => ({ agent: 'w', input: `step ${i}` })));
  const progress = initialProgress(steps);
  for (let i = 0; i < steps - 1; i++) progress.completed[String(i)] = { id: String(i), agent: 'w', response: 'r', tokens_estimated: 0 };
  const started = performance.now();
  const plan = planContinuation(pattern, progress, { last_event_id: 0, last_event_at: null });
  const elapsed = performance.now() - started;
  expect(plan.skip).toHaveLength(steps - 1);
  return elapsed;
}

describe('review: the continuation plan', () => {
  it('of a 20,000-step chain costs about ten times that of a 2,000-step one, not a hundred', () => {
    planMs(2000); // warm-up
    const small = Math.min(planMs(2000), planMs(2000));
    const large = planMs(20_000);
    // Linear would be ~10×; each planned step looked up by a scan of the shape made it ~100× (1.5 s at 30,000 steps).
    expect(large).toBeLessThan(Math.max(30 * small, 250));
  });
});
