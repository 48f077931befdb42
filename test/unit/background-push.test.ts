import { describe, expect, it } from 'vitest';
import { maxBackoffMs, nextDelayMs, pushIntervalMs } from '../../source/store/remote/background-push.js';

describe('the background push schedule', () => {
  it('pushes every interval while the store answers, ±50%', () => {
    expect(nextDelayMs(0, () => 0)).toBe(pushIntervalMs / 2);
    expect(nextDelayMs(0, () => 0.999)).toBeLessThan(pushIntervalMs * 1.5);
  });

  it('backs off by doubling from 1 s while it does not, capped, jittered', () => {
    const middle = () => 0.5;
    expect([1, 2, 3, 4, 5, 6, 7, 8, 20].map((failures) => nextDelayMs(failures, middle))).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000]);
    expect(nextDelayMs(50, () => 0.999)).toBeLessThan(maxBackoffMs * 1.5);
  });
});
