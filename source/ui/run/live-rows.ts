import { editKeys, responseLabel, type ApprovalPanelText } from './approval-text.js';
import { wrappedRows } from './below-lines.js';

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

/** Lines the lanes keep however short the terminal: a lane's header, the count of its steps under way ("… 5 running") and the count of the lanes folded (run-lanes.ts). */
export const fewestLaneLines = 3;

/** Rows of the one stream shown under the lanes (0: none), given the terminal's `height`, an approval panel's lines and the `below` rows under the lanes: the stream's title and a blank row above it take 2 more. */
export function laneStreamRows(height: number, approvalLines: number, streaming: boolean, below = rowsBelowSteps): number {
  return streaming ? Math.max(0, Math.min(streamRows, height - 1 - below - approvalLines - fewestLaneLines - 2)) : 0;
}

/** The most lines of an approval's context shown; the rest are counted on one line. */
export const approvalContextLines = 14;

/** How the approval panel is drawn to fit: the context lines shown, whether a line counts the rest, whether it has its border, the typed response's rows shown (its last) of all it wraps to, and the panel's rows. */
export interface ApprovalPanelRows {
  context: number;
  counted: boolean;
  border: boolean;
  input: { shown: number; rows: number };
  total: number;
}

/**
 * An approval panel's rows: its border, title and prompt (wrapped at the panel's width), the
 * context lines shown, a line counting the rest, and the keys (or the typed response, wrapped
 * beside its label, and the editor's keys), each as many rows as it wraps to. To fit, the context
 * gives way first — the panel stays while the person decides, and each frame taller than the
 * terminal cleared it — down to one line, then the border, then the rest, then the first rows of
 * a long response being typed; `lanes`: the run's lanes keep their fewest
 * lines too; `below`: the rows under the steps (below-lines.ts).
 */
export function approvalPanelRows(height: number, columns: number, panel: ApprovalPanelText, lanes: boolean, below = rowsBelowSteps): ApprovalPanelRows {
  const others = lanes ? below + fewestLaneLines : below + 1;
  const contextCount = panel.context ? panel.context.split('\n').length : 0;
  const drawn = (border: boolean): ApprovalPanelRows => {
    // Inside the border and its padding, or the whole width.
    const width = Math.max(1, columns - (border ? 4 : 0));
    // The typed text wraps beside its label, the cursor after it.
    const inputRows = panel.input === null ? 0 : wrappedRows(`${panel.input} `, Math.max(1, width - responseLabel.length));
    const keys = panel.input === null ? Math.max(...panel.keys.map((text) => wrappedRows(text, width))) : wrappedRows(editKeys, width);
    const fixed = (border ? 2 : 0) + wrappedRows(panel.title, width) + wrappedRows(panel.prompt, width) + keys + inputRows;
    const room = height - 1 - others - fixed;
    // All of it where it fits — one line over the most shown takes the row its count would ("… 1 more lines" said less) —
    // else as many lines as fit beside the count, and no count where not even it fits.
    const most = Math.min(room, approvalContextLines + 1);
    const shown = contextCount <= Math.max(0, most) ? contextCount : Math.max(0, most - 1);
    const counted = shown < contextCount && room >= 1;
    return { context: shown, counted, border, input: { shown: inputRows, rows: inputRows }, total: fixed + shown + (counted ? 1 : 0) };
  };
  // The border where the panel fits with it and a line of its context (when it has one).
  const bordered = drawn(true);
  const fitted = bordered.total + others <= height - 1 && (contextCount === 0 || bordered.context > 0) ? bordered : drawn(false);
  // Still too tall as a response is typed: its last rows show, where the cursor is (one at least).
  const over = fitted.total + others - (height - 1);
  const cut = Math.max(0, Math.min(over, fitted.input.rows - 1));
  return { ...fitted, input: { ...fitted.input, shown: fitted.input.rows - cut }, total: fitted.total - cut };
}
