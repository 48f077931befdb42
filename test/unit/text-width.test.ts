import fc from 'fast-check';
import stringWidthAsPublished from 'string-width';
import { describe, expect, it } from 'vitest';
import stringWidth from '../../source/ui/text-width.js';

// What the run view and browser draw, and what a model may say: ASCII, box drawing, braille spinners,
// CJK, fullwidth forms, combining marks, ZWJ emoji sequences, flags, keycaps, variation selectors,
// Hangul syllables and jamo, Thai SARA AM, Indic viramas, tabs, control characters and colour codes.
const pieces = [
  'a', 'w0x12 ', ' ', '·', '│', '─', '⠋', '○', '✓', '✔', '→', '≈', '…', '▸', '↷', '漢字', '日本語', 'ｶﾞ', 'ＡＢ', 'é', 'e\u0301', 'a\u20dd',
  '👍', '👍🏽', '👩‍💻', '🇫🇷', '1\ufe0f\u20e3', '☺', '☺\ufe0f', '\u2764\ufe0f', '한국', '\u1100\u1161\u11a8', '\u1100\u1100\u1161', 'กำ', 'ສຳ', 'क्षि', '\u0d4eക',
  '\u200b', '\u200d', '\u00ad', '\t', '\u0007', '\u001b[31m', '\u001b[39m', '\u001b[2m', '\u001b[22m', '\u009b', '\ue000', '\u0378', '\ud800', '\udc00', '\u3164',
];

describe('the run view\'s string width (source/ui/text-width.ts)', () => {
  it('measures every string as string-width does', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 12 }), (parts) => {
        const text = parts.join('');
        expect(stringWidth(text)).toBe(stringWidthAsPublished(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('measures every BMP character alone, and after an ASCII letter, as string-width does', () => {
    for (let code = 0; code < 0x10000; code++) {
      const character = String.fromCharCode(code);
      expect(stringWidth(character), `U+${code.toString(16)}`).toBe(stringWidthAsPublished(character));
      expect(stringWidth(`a${character}b`), `a U+${code.toString(16)} b`).toBe(stringWidthAsPublished(`a${character}b`));
    }
  });

  it('passes options it does not handle to string-width', () => {
    expect(stringWidth('○·', { ambiguousIsNarrow: false })).toBe(stringWidthAsPublished('○·', { ambiguousIsNarrow: false }));
    expect(stringWidth('\u001b[31mred\u001b[39m', { countAnsiEscapeCodes: true })).toBe(stringWidthAsPublished('\u001b[31mred\u001b[39m', { countAnsiEscapeCodes: true }));
  });
});

describe('the build\'s string width on options string-width reads its own way', () => {
  // string-width 8 takes `ambiguousIsNarrow = true` as a destructuring default: only undefined means
  // narrow, so null or 0 measure ambiguous characters wide; text-width.ts treats only `false` so.
  it('measures with ambiguousIsNarrow: null or 0 as string-width 8 does (ambiguous characters wide)', () => {
    for (const ambiguousIsNarrow of [null, 0] as unknown as boolean[]) {
      expect(stringWidth('○·', { ambiguousIsNarrow })).toBe(stringWidthAsPublished('○·', { ambiguousIsNarrow }));
    }
  });
});
