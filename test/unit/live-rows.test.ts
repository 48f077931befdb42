import { describe, expect, it } from 'vitest';
import { approvalContextLines, approvalPanelRows, chainLiveRows, laneStreamRows, pendingShown, streamRows } from '../../source/ui/run/live-rows.js';

/** Rows a chain's live area takes: its step rows, the stream, pending steps and their count, and the five under them. */
const height = (running: number, rows: ReturnType<typeof chainLiveRows>) => running + rows.tail + rows.pending + (rows.more ? 1 : 0) + 5;

describe('the live area fits the terminal', () => {
  it('gives a chain every row it wants in a tall terminal', () => {
    expect(chainLiveRows(40, 1, 10, true)).toEqual({ tail: streamRows, pending: pendingShown, more: true });
    expect(chainLiveRows(40, 1, 2, false)).toEqual({ tail: 0, pending: 2, more: false });
  });

  it('keeps a chain shorter than the terminal at every height, the stream before pending steps', () => {
    for (let rows = 1; rows <= 40; rows++) {
      for (const pending of [0, 1, 3, 4, 20]) {
        for (const streaming of [false, true]) {
          const live = chainLiveRows(rows, 1, pending, streaming);
          // The running row and the five under it are always drawn; all the rest fits below the terminal's last row.
          if (rows > 7) expect(height(1, live)).toBeLessThan(rows);
          expect(live.tail).toBeLessThanOrEqual(streaming ? streamRows : 0);
          expect(live.pending).toBeLessThanOrEqual(Math.min(pending, pendingShown));
          if (live.more) expect(pending).toBeGreaterThan(live.pending);
          // Pending steps are listed only once the stream has three rows (or all it could want).
          if (streaming && live.pending > 0) expect(live.tail).toBeGreaterThanOrEqual(3);
        }
      }
    }
    // 12 rows, as a tmux pane split in two: three rows of stream, one pending step and the count of the rest.
    expect(chainLiveRows(12, 1, 5, true)).toEqual({ tail: 3, pending: 1, more: true });
    expect(chainLiveRows(8, 1, 5, true)).toEqual({ tail: 1, pending: 0, more: false });
  });

  it('shows the lanes’ stream only where it fits, up to its rows', () => {
    expect(laneStreamRows(40, 0, true)).toBe(streamRows);
    expect(laneStreamRows(40, 0, false)).toBe(0);
    // The last row, the rows under the lanes (7: the totals wrapped, a countdown), the lanes' fewest 4 and the stream's title and blank row.
    expect(laneStreamRows(16, 0, true, 7)).toBe(2);
    expect(laneStreamRows(14, 0, true, 7)).toBe(0);
    expect(laneStreamRows(40, 21, true, 7)).toBe(5);
    // Under the lanes at 100 columns: a blank row, the totals, the pause hint.
    expect(laneStreamRows(14, 0, true, 3)).toBe(4);
  });

  it('gives an approval’s context what the terminal has room for, at least a line, the rest counted', () => {
    const context = (lines: number) => Array.from({ length: lines }, (_, i) => `line ${i}`).join('\n');
    expect(approvalPanelRows(60, 100, 'Approve?', context(30), false)).toEqual({ context: approvalContextLines, total: 6 + approvalContextLines + 1 });
    expect(approvalPanelRows(60, 100, 'Approve?', context(3), false)).toEqual({ context: 3, total: 9 });
    expect(approvalPanelRows(60, 100, 'Approve?', '', false)).toEqual({ context: 0, total: 6 });
    // One line over shows in the row its count would take.
    expect(approvalPanelRows(60, 100, 'Approve?', context(approvalContextLines + 1), false)).toEqual({ context: approvalContextLines + 1, total: 6 + approvalContextLines + 1 });
    expect(approvalPanelRows(14, 80, 'Approve?', context(2), false)).toEqual({ context: 2, total: 8 });
    for (let height = 1; height <= 40; height++) {
      for (const lines of [0, 1, 5, 14, 15, 40]) {
        for (const [lanes, around] of [[false, 1 + 5], [true, 5 + 4]] as const) {
          const panel = approvalPanelRows(height, 100, 'Approve the research?', context(lines), lanes);
          expect(panel.context).toBeLessThanOrEqual(Math.min(lines, approvalContextLines + 1));
          if (lines > 0) expect(panel.context).toBeGreaterThanOrEqual(1);
          // Where a line of context fits, the panel and the rows around it stay under the terminal's last row.
          if (height - 1 - around - 6 >= 2) expect(panel.total + around).toBeLessThan(height);
        }
      }
    }
    // A prompt wider than the panel wraps: its rows count.
    expect(approvalPanelRows(60, 24, 'x'.repeat(60), '', false).total).toBe(5 + 3);
  });
});
