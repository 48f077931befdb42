import type { StepNotice } from '../engine/step-notice.js';
import type { StepId } from '../engine/step-id.js';
import stringWidth from 'string-width';
import { terminalText } from '../printable-text.js';
import { redact } from '../secrets/redactor.js';

/** Characters of a running step's streamed text kept: far more than the lines shown, so a cut never shows. */
export const streamTailChars = 4096;

/** How a tool call that starts shows in the streamed text: a line of its own. */
export const toolLinePrefix = '→ ';

/** A running step whose attempt has begun to stream (what it says is read with RunState.streamText). */
export interface StepStream {
  attempt: number;
}

/** Raw text of each running step, kept out of the store's state: a view reads what it shows when it draws. */
export class StreamTails {
  private readonly raw = new Map<StepId, { attempt: number; text: string; cut: boolean; shown?: string }>();

  /** A new attempt starts with nothing shown. */
  reset(step: StepId): void {
    this.raw.delete(step);
  }

  /**
   * Adds notices of attempts still running (`attemptOf` says which attempt of a step runs, if any);
   * returns the steps touched. Appending is all it does: redaction waits until a view draws.
   */
  add(notices: readonly StepNotice[], attemptOf: (step: StepId) => number | undefined): Map<StepId, number> {
    const touched = new Map<StepId, number>();
    for (const notice of notices) {
      if (attemptOf(notice.step) !== notice.attempt) continue; // late news of an attempt that ended
      let tail = this.raw.get(notice.step);
      if (!tail || tail.attempt !== notice.attempt) {
        tail = { attempt: notice.attempt, text: '', cut: false };
        this.raw.set(notice.step, tail);
      }
      if (notice.type === 'step_text') tail.text += notice.text;
      else tail.text += `${tail.text && !tail.text.endsWith('\n') ? '\n' : ''}${toolLinePrefix}${notice.name}\n`;
      // Cut back to the kept length only once twice it: a cut copies the whole tail, and doing it on
      // every piece (a hundred a second) copied 4 KiB each time; `shown` keeps the last streamTailChars.
      if (tail.text.length > 2 * streamTailChars) {
        tail.text = tail.text.slice(-streamTailChars);
        tail.cut = true;
      }
      tail.shown = undefined;
      touched.set(notice.step, notice.attempt);
    }
    return touched;
  }

  /** What a step's stream shows now, redacted (computed once per change, when a view asks). */
  shown(step: StepId): string | undefined {
    const tail = this.raw.get(step);
    if (!tail) return undefined;
    tail.shown ??= tail.text.length > streamTailChars ? shownText(tail.text.slice(-streamTailChars), true) : shownText(tail.text, tail.cut);
    return tail.shown;
  }
}

/**
 * The tail redacted as a whole (a key that arrived in pieces is whole here); once the start was cut
 * off, the first line goes too, so that no piece of a secret cut in half can show.
 */
function shownText(text: string, cut: boolean): string {
  const clean = redact(text);
  if (!cut) return clean;
  const newline = clean.indexOf('\n');
  return newline >= 0 && newline < clean.length - 1 ? clean.slice(newline + 1) : clean.slice(64);
}

const graphemes = new Intl.Segmenter();

/**
 * A line broken into rows of at most `width` columns: ASCII by length; otherwise character by
 * character (a wide character takes two columns, a combining mark none), never splitting one — so
 * a row always fits and the view never has to wrap or cut it.
 */
function rowsOf(line: string, width: number): string[] {
  const pieces: string[] = [];
  if (/^[\x20-\x7e]*$/.test(line)) {
    for (let at = 0; at < line.length; at += width) pieces.push(line.slice(at, at + width));
    return pieces;
  }
  let row = '';
  let used = 0;
  for (const { segment } of graphemes.segment(line)) {
    const columns = stringWidth(segment);
    if (used + columns > width && row) {
      pieces.push(row);
      row = '';
      used = 0;
    }
    row += segment;
    used += columns;
  }
  if (row) pieces.push(row);
  return pieces;
}

/**
 * The last `count` rows of streamed text `width` columns wide: lines broken where they are too long
 * (the newest words are at the end of the last one), blank lines dropped.
 */
export function lastRows(text: string, width: number, count: number): string[] {
  const rows: string[] = [];
  // Lines are taken from the end, as far back as the rows need: the text is up to 4 KiB, the rows a few lines of it.
  for (let end = text.length; rows.length < count; ) {
    const start = end > 0 ? text.lastIndexOf('\n', end - 1) : -1;
    // A model's text may hold terminal control sequences: shown, they could move the cursor or recolour the screen.
    // Whole escape sequences go (terminalText), not only their ESC: `[41;97mINJECT` was left showing.
    const line = terminalText(text.slice(start + 1, end)).replaceAll('\t', '  ').replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trimEnd();
    if (line) rows.unshift(...rowsOf(line, Math.max(1, width)).slice(-(count - rows.length)));
    if (start < 0) break;
    end = start;
  }
  return rows;
}
