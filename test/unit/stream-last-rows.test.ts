import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lastRows } from '../../source/state/step-streams.js';

/**
 * The rows as the whole text split into lines gives them, read from the last line back: what
 * lastRows must show. A line's own rows are lastRows' of that line alone (one line, no search for
 * its start): what is checked is how lines are found from the end.
 */
function rowsOfWholeText(text: string, width: number, count: number): string[] {
  const rows: string[] = [];
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0 && rows.length < count; i--) rows.unshift(...lastRows(lines[i]!, width, Number.MAX_SAFE_INTEGER).slice(-(count - rows.length)));
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

  it('show no part of an escape sequence a model wrote: the whole sequence goes, not only its ESC', () => {
    expect(lastRows('\u001b[41;97mINJECT\u001b[0m \u001b]2;TITLE\u0007 \u001b[?1049l done', 80, 1)).toEqual(['INJECT   done']);
  });
});
