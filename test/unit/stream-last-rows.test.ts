import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lastRows } from '../../source/state/step-streams.js';
import stringWidth from 'string-width';

/** The rows as the whole text split into lines gives them, read from the last line back: what lastRows must show. */
function rowsOfWholeText(text: string, width: number, count: number): string[] {
  const rows: string[] = [];
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0 && rows.length < count; i--) {
    const line = lines[i]!.replaceAll('\t', '  ').replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trimEnd();
    if (!line) continue;
    const pieces: string[] = [];
    let row = '';
    let used = 0;
    for (const { segment } of new Intl.Segmenter().segment(line)) {
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
    rows.unshift(...pieces.slice(-(count - rows.length)));
  }
  return rows;
}

describe('the last rows of a stream\'s text (state/step-streams.ts)', () => {
  it('are the rows of the whole text\'s last lines, found from its end', () => {
    const piece = fc.constantFrom('word ', 'w0x12 ', '\n', '\n\n', '\t', '漢字', 'é', ' ', '\u001b[31m', 'a'.repeat(30), '│');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 7 }), (parts, width, count) => {
        const text = parts.join('');
        expect(lastRows(text, width, count)).toEqual(rowsOfWholeText(text, width, count));
      }),
      { numRuns: 2000 },
    );
  });
});
