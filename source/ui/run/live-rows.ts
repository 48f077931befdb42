/**
 * How many rows the run view's live area (below the finished steps) may give a running step's
 * streamed text and the pending steps, so that it stays shorter than the terminal: a frame as tall
 * as the terminal makes Ink clear the whole screen, scrollback and all, and rewrite every finished
 * row on each frame (10 a second) — in a 12-row tmux pane, a streaming chain did just that.
 */

/** The most rows of a running step's streamed text shown: its latest words. */
export const streamRows = 6;
/** Pending steps a chain lists below the running one; the rest are counted on one line. */
export const pendingShown = 3;
/** Rows under the steps while a run is live, where they are not counted at the terminal's width (below-lines.ts counts them): a blank row, the totals (two where a narrow terminal wraps them), the spend, the pause hint. */
export const rowsBelowSteps = 5;
/** Streamed rows a chain keeps before it lists pending steps: what the model says matters more than what comes next. */
const tailFirst = 3;

export interface ChainLiveRows {
  /** Rows of streamed text under the running step (0: none). */
  tail: number;
  /** Pending steps listed. */
  pending: number;
  /** Whether a line counts the pending steps not listed. */
  more: boolean;
}

/** A chain's live area in a terminal `height` rows tall, with `running` step rows, `pendingCount` pending steps, an approval panel `approvalRows` tall (0: none) and `below` rows under the steps. */
export function chainLiveRows(height: number, running: number, pendingCount: number, streaming: boolean, approvalRows = 0, below = rowsBelowSteps): ChainLiveRows {
  let left = Math.max(0, height - 1 - below - running - approvalRows);
  let tail = streaming ? Math.min(tailFirst, left) : 0;
  left -= tail;
  let pending = Math.min(pendingCount, pendingShown);
  while (pending > 0 && pending + (pendingCount > pending ? 1 : 0) > left) pending--;
  const more = pendingCount > pending && left - pending >= 1;
  left -= pending + (more ? 1 : 0);
  if (streaming) tail += Math.min(streamRows - tail, left);
  return { tail, pending, more };
}

/** Lines the lanes keep however short the terminal: a lane's header and its running rows. */
export const fewestLaneLines = 4;

/** Rows of the one stream shown under the lanes (0: none), given the terminal's `height`, an approval panel's lines and the `below` rows under the lanes: the stream's title and a blank row above it take 2 more. */
export function laneStreamRows(height: number, approvalLines: number, streaming: boolean, below = rowsBelowSteps): number {
  return streaming ? Math.max(0, Math.min(streamRows, height - 1 - below - approvalLines - fewestLaneLines - 2)) : 0;
}

/** The most lines of an approval's context shown; the rest are counted on one line. */
export const approvalContextLines = 14;

/**
 * An approval panel's rows: its border, title, prompt (wrapped at `columns`), the context lines
 * shown, a line counting the rest, and its key hints (two while a response is typed). The context
 * gives way first — the panel stays while the person decides, and each frame taller than the
 * terminal cleared it — down to one line; `lanes`: the run's lanes keep their fewest lines too;
 * `below`: the rows under the steps (below-lines.ts).
 */
export function approvalPanelRows(height: number, columns: number, prompt: string, context: string, lanes: boolean, below = rowsBelowSteps): { context: number; total: number } {
  const width = Math.max(1, columns - 4);
  const promptRows = prompt.split('\n').reduce((rows, line) => rows + Math.max(1, Math.ceil(line.length / width)), 0);
  const contextCount = context ? context.split('\n').length : 0;
  const fixed = 2 + 1 + promptRows + 2;
  const others = lanes ? below + fewestLaneLines : below + 1;
  const room = height - 1 - others - fixed;
  let shown = Math.min(contextCount, approvalContextLines, Math.max(1, room));
  if (shown < contextCount && shown + 1 > room) shown = Math.max(Math.min(1, contextCount), room - 1);
  // One line left over takes the row its count would: it is shown ("… 1 more lines" said less).
  if (contextCount - shown === 1) shown = contextCount;
  return { context: shown, total: fixed + shown + (shown < contextCount ? 1 : 0) };
}
