import { describe, expect, it } from 'vitest';
import { approvalContextLines, approvalPanelRows, chainLiveRows, laneStreamRows, pendingShown, streamRows } from '../../source/ui/run/live-rows.js';
import { approvalKeys, rejectQuestion, type ApprovalPanelText } from '../../source/ui/run/approval-text.js';

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
    // The last row, the rows under the lanes (7: the totals wrapped, a countdown), the lanes' fewest 3 and the stream's title and blank row.
    expect(laneStreamRows(16, 0, true, 7)).toBe(3);
    expect(laneStreamRows(13, 0, true, 7)).toBe(0);
    expect(laneStreamRows(40, 21, true, 7)).toBe(6);
    // Under the lanes at 100 columns: a blank row, the totals, the pause hint.
    expect(laneStreamRows(14, 0, true, 3)).toBe(5);
  });

  /** An approval panel's text: the title, the prompt, the context and the keys as the panel says them. */
  const panel = (prompt: string, context: string, input: string | null = null, defaultResponse = 'approved'): ApprovalPanelText => ({
    title: 'approval needed · step 2',
    prompt,
    context,
    keys: [approvalKeys(defaultResponse), `${rejectQuestion}y reject · n keep waiting`],
    input,
  });
  const context = (lines: number) => Array.from({ length: lines }, (_, i) => `line ${i}`).join('\n');

  it('gives an approval’s context what the terminal has room for, the rest counted', () => {
    const none = { shown: 0, rows: 0 };
    const bordered = { border: true, counted: false, input: none };
    expect(approvalPanelRows(60, 100, panel('Approve?', context(30)), false)).toEqual({ ...bordered, counted: true, context: approvalContextLines, total: 5 + approvalContextLines + 1 });
    expect(approvalPanelRows(60, 100, panel('Approve?', context(3)), false)).toEqual({ ...bordered, context: 3, total: 8 });
    expect(approvalPanelRows(60, 100, panel('Approve?', ''), false)).toEqual({ ...bordered, context: 0, total: 5 });
    // One line over shows in the row its count would take.
    expect(approvalPanelRows(60, 100, panel('Approve?', context(approvalContextLines + 1)), false)).toEqual({ ...bordered, context: approvalContextLines + 1, total: 5 + approvalContextLines + 1 });
    expect(approvalPanelRows(14, 80, panel('Approve?', context(2)), false)).toEqual({ ...bordered, context: 2, total: 7 });
    // 12 rows at 80 columns (examples/chain-approval-demo.yaml): under the panel a blank row, the totals and the hint, above it the step.
    expect(approvalPanelRows(12, 80, panel('Approve?', context(3)), false, 3)).toEqual({ ...bordered, counted: true, context: 1, total: 7 });
    // No room for the bordered panel and a line of its context: it goes without its border (two rows), and the context has them.
    expect(approvalPanelRows(11, 80, panel('Approve?', context(3)), false, 3)).toEqual({ border: false, counted: false, input: none, context: 3, total: 6 });
    expect(approvalPanelRows(10, 80, panel('Approve?', context(3)), false, 3)).toEqual({ border: false, counted: true, input: none, context: 1, total: 5 });
    // Room for the count alone: no line of it, the count says it is there.
    expect(approvalPanelRows(9, 80, panel('Approve?', context(3)), false, 3)).toEqual({ border: false, counted: true, input: none, context: 0, total: 4 });
    // No room even so: the panel alone, no count of a context it cannot show.
    expect(approvalPanelRows(8, 80, panel('Approve?', context(3)), false, 3)).toEqual({ border: false, counted: false, input: none, context: 0, total: 3 });
    for (let height = 1; height <= 40; height++) {
      for (const lines of [0, 1, 5, 14, 15, 40]) {
        for (const [lanes, around] of [[false, 1 + 5], [true, 5 + 3]] as const) {
          const rows = approvalPanelRows(height, 100, panel('Approve the research?', context(lines)), lanes);
          expect(rows.context).toBeLessThanOrEqual(Math.min(lines, approvalContextLines + 1));
          // Where the panel fits without its border, the panel and the rows around it stay under the terminal's last row.
          if (height - 1 - around - 3 >= 0) expect(rows.total + around).toBeLessThan(height);
          if (rows.counted) expect(rows.context).toBeLessThan(lines);
        }
      }
    }
  });

  it('counts an approval panel’s rows as they wrap: the prompt, the keys with a long default, the response typed', () => {
    // A prompt wider than the panel wraps at its words (three 40-character words in 76 columns: three rows).
    const words = ['a'.repeat(40), 'b'.repeat(40), 'c'.repeat(40)].join(' ');
    expect(approvalPanelRows(60, 80, panel(words, ''), false).total).toBe(2 + 1 + 3 + 1);
    // At 24 columns (20 inside) the title takes two rows, the prompt three, the keys four.
    expect(approvalPanelRows(60, 24, panel('x'.repeat(60), ''), false).total).toBe(2 + 2 + 3 + 4);
    // The keys' row with a long default response wraps.
    expect(approvalPanelRows(60, 80, panel('Approve?', '', null, 'd'.repeat(80)), false).total).toBe(2 + 1 + 1 + 2);
    // Typing: the response's row (wrapped beside its 11-column label as it grows, the cursor after it) and the editor's keys.
    expect(approvalPanelRows(60, 80, panel('Approve?', '', ''), false).total).toBe(2 + 1 + 1 + 2);
    expect(approvalPanelRows(60, 80, panel('Approve?', '', 'x'.repeat(194)), false).total).toBe(2 + 1 + 1 + 3 + 1);
    expect(approvalPanelRows(60, 80, panel('Approve?', '', 'x'.repeat(200)), false).total).toBe(2 + 1 + 1 + 4 + 1);
    // The context gives way to what is typed.
    expect(approvalPanelRows(12, 80, panel('Approve?', context(3), 'x'.repeat(200)), false, 3)).toMatchObject({ context: 0, counted: true });
    // Shorter still: the response shows its last rows (where the cursor is), one at least.
    expect(approvalPanelRows(10, 80, panel('Approve?', context(3), 'x'.repeat(200)), false, 3)).toMatchObject({ context: 0, counted: false, border: false, input: { shown: 2, rows: 3 }, total: 5 });
    expect(approvalPanelRows(5, 80, panel('Approve?', context(3), 'x'.repeat(200)), false, 3).input).toEqual({ shown: 1, rows: 3 });
  });
});
