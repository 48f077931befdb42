import { describe, expect, it } from 'vitest';
import type { StepStatus, StepView } from '../../source/state/run-store.js';
import { lanesOf, liveLanes, type LiveEntry } from '../../source/ui/run/run-lanes.js';

/** `branches` branches of `length` steps, the first `running` of them running their first step. */
function branches(count: number, length: number, running: number): StepView[] {
  return Array.from({ length: count }, (_, b) =>
    Array.from({ length }, (_, n): StepView => {
      const status: StepStatus = b < running && n === 0 ? 'running' : 'pending';
      return { id: `b${b}/${n}`, index: b * length + n, agent: 'worker', title: `b${b} step ${n + 1}`, group: `b${b}`, status, attempt: status === 'running' ? 1 : 0 };
    }),
  ).flat();
}

const lines = (entries: LiveEntry[]) => entries.reduce((sum, e) => sum + (e.kind === 'more' ? 1 : 1 + e.rows.length + (e.morePending ? 1 : 0) + (e.moreActive.running + e.moreActive.waiting ? 1 : 0)), 0);

describe('lanes of the run view', () => {
  it('shows every lane in full when they fit', () => {
    const live = liveLanes(lanesOf(branches(3, 3, 3), 'parallel'), 30);
    expect(live.map((e) => (e.kind === 'lane' ? e.rows.length : -1))).toEqual([3, 3, 3]);
  });

  it('keeps the running steps of many branches within the budget, folding the rest into one line that counts them', () => {
    const live = liveLanes(lanesOf(branches(20, 4, 20), 'parallel'), 23);
    expect(lines(live)).toBeLessThanOrEqual(23);
    const shown = live.filter((e) => e.kind === 'lane');
    // Every branch shown keeps its running row and drops the rest.
    for (const entry of shown) expect(entry.kind === 'lane' && entry.rows.map((r) => r.status)).toEqual(['running']);
    const more = live.at(-1)!;
    expect(more).toEqual({ kind: 'more', lanes: 20 - shown.length, steps: (20 - shown.length) * 4, running: 20 - shown.length });
  });

  it('folds idle branches before it trims running ones', () => {
    const live = liveLanes(lanesOf(branches(10, 4, 2), 'parallel'), 14);
    expect(lines(live)).toBeLessThanOrEqual(14);
    expect(live.slice(0, 2).map((e) => e.kind === 'lane' && e.rows.length)).toEqual([4, 4]);
    expect(live.at(-1)).toMatchObject({ kind: 'more', running: 0 });
  });

  it('counts the running steps of a lane past those the terminal has room for, keeping one', () => {
    // One workflow level of five tasks, all running.
    const level = branches(1, 5, 0).map((step) => ({ ...step, status: 'running' as const, group: 'level 1' }));
    const [four] = liveLanes(lanesOf(level, 'workflow'), 4);
    expect(four).toMatchObject({ kind: 'lane', moreActive: { running: 3, waiting: 0 } });
    expect(four!.kind === 'lane' && four!.rows.map((row) => row.id)).toEqual(['b0/0', 'b0/1']);
    expect(lines([four!])).toBe(4);
    // However short the terminal, the lane keeps its header and the count.
    const [least] = liveLanes(lanesOf(level, 'workflow'), 1);
    expect(least).toMatchObject({ kind: 'lane', rows: [], moreActive: { running: 5, waiting: 0 } });
    expect(liveLanes(lanesOf(level, 'workflow'), 6)).toMatchObject([{ kind: 'lane', moreActive: { running: 0, waiting: 0 } }]);
    // Steps waiting (a retry, a person) are counted as waiting, not running.
    const waiting = level.map((step, i) => (i >= 2 ? { ...step, status: 'waiting' as const } : step));
    const [split] = liveLanes(lanesOf(waiting, 'workflow'), 3);
    expect(split).toMatchObject({ kind: 'lane', moreActive: { running: 1, waiting: 3 } });
    expect(lines([split!])).toBe(3);
  });
});
