/**
 * What one press of Backspace or an arrow steps over in typed text: a grapheme cluster, as the
 * terminal draws it — an emoji (two UTF-16 units), a flag, a letter and its accent. Cutting one in
 * two leaves a lone surrogate, which the screen and the saved text both show as U+FFFD.
 */
const graphemes = new Intl.Segmenter();

/** Where the grapheme ending at `offset` starts (0 at the start of the text). */
export function graphemeStartBefore(text: string, offset: number): number {
  if (offset <= 0) return 0;
  return graphemes.segment(text).containing(offset - 1)?.index ?? 0;
}

/** Where the grapheme starting at `offset` ends (the text's length at its end). */
export function graphemeEndAfter(text: string, offset: number): number {
  const segment = graphemes.segment(text).containing(offset);
  return segment ? segment.index + segment.segment.length : text.length;
}

/** The text with its last grapheme deleted, as Backspace at its end does. */
export function withoutLastGrapheme(text: string): string {
  return text.slice(0, graphemeStartBefore(text, text.length));
}
