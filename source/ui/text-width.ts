import stripAnsi from 'strip-ansi';
import realStringWidth from 'string-width';

/**
 * string-width 8, as fast for the run view's text as for ASCII. Ink measures every text node
 * twice a frame (layout, then drawing), and string-width segments any string with one character
 * past ASCII into graphemes and tests each against Unicode regexes: a summary line with a "·" in it
 * costs ~60 µs a call, a spinner frame ~5 µs, ten times a second. Here each character's width is
 * learnt once (by string-width itself, on that character alone) and a string of such characters is
 * their sum — exact wherever each character is a grapheme of its own, which holds for every
 * character that neither joins nor is joined to a neighbour. A string holding any other (a mark,
 * a joiner, a variation selector, a Hangul jamo, anything outside the BMP) goes to string-width
 * whole. scripts/build.mjs puts this in string-width's place for Ink and the modules it draws with;
 * test/unit/text-width.test.ts compares the two on random text.
 */
export default function stringWidth(input: string, options?: Parameters<typeof realStringWidth>[1]): number {
  // string-width takes only `undefined` (or true) as narrow, and counts codes on any truthy value.
  if ((options?.ambiguousIsNarrow !== undefined && options.ambiguousIsNarrow !== true) || options?.countAnsiEscapeCodes) return realStringWidth(input, options);
  if (typeof input !== 'string' || input.length === 0) return 0;
  // As string-width does: escape sequences take no columns.
  const text = input.includes('\u001B') || input.includes('\u009B') ? stripAnsi(input) : input;
  let width = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x20 && code <= 0x7e) {
      width++;
      continue;
    }
    const columns = columnsAlone(code);
    if (columns === joins) return realStringWidth(input, options);
    width += columns;
  }
  return width;
}

const unknown = -1;
/** A character that may be part of a grapheme with its neighbour: its string is measured whole. */
const joins = -2;
/** What each BMP character takes alone, learnt as met. */
const widths = new Int8Array(0x10000).fill(unknown);

/**
 * Characters that can join a neighbour into one grapheme (Unicode's grapheme cluster rules):
 * marks (Extend, SpacingMark), format characters (ZWJ, ZWNJ, Prepend), controls, surrogates (every
 * character past the BMP: emoji, regional indicators, modifiers), Hangul jamo, and the few letters
 * that are SpacingMark, Prepend or Extend (Thai and Lao SARA AM, Malayalam dot reph, the halfwidth
 * kana voicing marks). Private-use and unassigned code points too, whose properties a newer Unicode
 * may change.
 */
const joiner = /[\p{M}\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\u1100-\u11ff\ua960-\ua97f\ud7b0-\ud7ff\u0e33\u0eb3\u0d4e\uff9e\uff9f]/u;

/**
 * A character of one column that is always a grapheme of its own, whatever stands beside it (a box
 * drawing line, a spinner's braille, "·", "—", "é" as one character): drawn as one cell, as ASCII is.
 */
export function narrowAlone(code: number): boolean {
  return (code >= 0x20 && code <= 0x7e) || columnsAlone(code) === 1;
}

/** What BMP character `code` takes alone (or `joins`), learnt the first time it is met. */
function columnsAlone(code: number): number {
  let columns = widths[code]!;
  if (columns === unknown) {
    columns = widthAlone(code);
    widths[code] = columns;
  }
  return columns;
}

function widthAlone(code: number): number {
  const character = String.fromCharCode(code);
  return joiner.test(character) ? joins : realStringWidth(character);
}
