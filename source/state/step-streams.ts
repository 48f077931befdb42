import type { StepNotice } from '../engine/step-notice.js';
import type { StepId } from '../engine/step-id.js';
import { redact } from '../secrets/redactor.js';

/** Characters of a running step's streamed text kept: far more than the lines shown, so a cut never shows. */
export const streamTailChars = 4096;

/** How a tool call that starts shows in the streamed text: a line of its own. */
export const toolLinePrefix = '→ ';

/** A running step's streamed answer as the view shows it. */
export interface StepStream {
  attempt: number;
  /** The latest part of the text (tool calls as `→ name` lines), redacted. */
  text: string;
}

/** Raw text of each running step, kept out of the store: only what is shown (redacted) goes in. */
export class StreamTails {
  private readonly raw = new Map<StepId, { attempt: number; text: string; cut: boolean }>();

  /** A new attempt starts with nothing shown. */
  reset(step: StepId): void {
    this.raw.delete(step);
  }

  /**
   * Adds notices of attempts still running (`attemptOf` says which attempt of a step runs, if any)
   * and returns what each step touched now shows. Per batch, not per piece: a fast stream costs one
   * redaction of ≤ 4 KiB per step and frame.
   */
  add(notices: readonly StepNotice[], attemptOf: (step: StepId) => number | undefined): Map<StepId, StepStream> {
    const touched = new Set<StepId>();
    for (const notice of notices) {
      if (attemptOf(notice.step) !== notice.attempt) continue; // late news of an attempt that ended
      let tail = this.raw.get(notice.step);
      if (!tail || tail.attempt !== notice.attempt) {
        tail = { attempt: notice.attempt, text: '', cut: false };
        this.raw.set(notice.step, tail);
      }
      if (notice.type === 'step_text') tail.text += notice.text;
      else tail.text += `${tail.text && !tail.text.endsWith('\n') ? '\n' : ''}${toolLinePrefix}${notice.name}\n`;
      if (tail.text.length > streamTailChars) {
        tail.text = tail.text.slice(-streamTailChars);
        tail.cut = true;
      }
      touched.add(notice.step);
    }
    const shown = new Map<StepId, StepStream>();
    for (const step of touched) {
      const tail = this.raw.get(step)!;
      shown.set(step, { attempt: tail.attempt, text: shownText(tail.text, tail.cut) });
    }
    return shown;
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

/**
 * The last `count` rows of streamed text `width` columns wide: lines broken where they are too long
 * (the newest words are at the end of the last one), blank lines dropped.
 */
export function lastRows(text: string, width: number, count: number): string[] {
  const rows: string[] = [];
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0 && rows.length < count; i--) {
    // A model's text may hold terminal control sequences: shown, they could move the cursor or recolour the screen.
    const line = lines[i]!.replaceAll('\t', '  ').replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trimEnd();
    if (!line) continue;
    const pieces: string[] = [];
    for (let at = 0; at < line.length; at += Math.max(1, width)) pieces.push(line.slice(at, at + Math.max(1, width)));
    rows.unshift(...pieces.slice(-(count - rows.length)));
  }
  return rows;
}
