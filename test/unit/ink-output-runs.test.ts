import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
// Ink's own Output, which the bundle replaces: the port must draw what it draws.
import InkOutput from '../../node_modules/ink/build/output.js';
import Output from '../../source/ui/ink-output.js';
import { narrowAlone } from '../../source/ui/text-width.js';
import { drawOps, type OutputOp } from '../helpers/draw-output.js';

// The runs path of source/ui/ink-output.ts (a line of one-column characters and SGR codes drawn as runs
// of one style): "narrow standalone" characters past ASCII, the skeleton cache, codesBetween, and the
// bounded caches cleared mid-frame. (Found by a hostile review: test/unit/review10-ink-output.test.ts before.)

const esc = '\u001b[';
const transformers: ((line: string, index: number) => string)[][] = [[], [(line) => `${esc}2m${line}${esc}22m`], [(line, index) => `${index}${esc}38;5;${index % 256}m>${esc}39m${line}`]];

const narrowCodes: number[] = [];
for (let code = 0x80; code < 0x10000; code++) if (narrowAlone(code)) narrowCodes.push(code);

/** SGR codes of every kind ansi-tokenize reads: plain, compound, 8-bit and 24-bit colours, bare resets, unknown numbers, broken 38s. */
const sgrCode = fc.oneof(
  fc.constantFrom('0', '', '1', '2', '22', '3', '23', '4', '24', '7', '27', '9', '29', '31', '39', '42', '49', '1;31', '2;1', '22;39', '38;5', '38;2;1', '99', '5', '25', '53', '55', '0;1;4'),
  fc.integer({ min: 0, max: 255 }).map((n) => `38;5;${n}`),
  fc.integer({ min: 0, max: 255 }).map((n) => `48;5;${n}`),
  fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 })).map(([a, b]) => `38;2;${a};${b};7`),
).map((params) => `${esc}${params}m`);
const narrowChar = fc.integer({ min: 0, max: narrowCodes.length - 1 }).map((i) => String.fromCharCode(narrowCodes[i]!));
const anyBmp = fc.integer({ min: 0x20, max: 0xffff }).map((code) => String.fromCharCode(code));
const part = fc.oneof({ weight: 4, arbitrary: narrowChar }, { weight: 3, arbitrary: sgrCode }, { weight: 2, arbitrary: fc.constantFrom('a', ' ', 'ab c', '  ') }, { weight: 1, arbitrary: anyBmp });
const line = fc.array(part, { maxLength: 14 }).map((parts) => parts.join(''));
const text = fc.array(line, { minLength: 1, maxLength: 3 }).map((lines) => lines.join('\n'));
const write: fc.Arbitrary<OutputOp> = fc.record({ kind: fc.constant('write' as const), x: fc.integer({ min: -2, max: 22 }), y: fc.integer({ min: 0, max: 4 }), text, transform: fc.integer({ min: 0, max: 2 }) });
const op: fc.Arbitrary<OutputOp> = fc.oneof(
  { weight: 8, arbitrary: write },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('clip' as const), x1: fc.option(fc.integer({ min: -1, max: 8 }), { nil: undefined }), x2: fc.option(fc.integer({ min: 4, max: 22 }), { nil: undefined }), y1: fc.option(fc.integer({ min: -1, max: 2 }), { nil: undefined }), y2: fc.option(fc.integer({ min: 2, max: 5 }), { nil: undefined }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'unclip' as const }) },
);
const frame = fc.record({ width: fc.integer({ min: 1, max: 24 }), height: fc.integer({ min: 1, max: 5 }), ops: fc.array(op, { maxLength: 8 }) });

const draw = (output: InkOutput | Output, ops: readonly OutputOp[]) => drawOps(output, ops, transformers);

describe('the bundle\'s Output drawing lines as runs of one style, against Ink 6.8\'s', () => {
  it('draws random narrow BMP characters between SGR codes of every kind (and any BMP character) as Ink does, frame after frame', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(frame, { minLength: 1, maxLength: 4 }), fc.boolean(), async (frames, turn) => {
        for (const { width, height, ops } of [...frames, ...frames]) {
          expect(draw(new Output({ width, height }), ops)).toEqual(draw(new InkOutput({ width, height }), ops));
          if (turn) await Promise.resolve();
        }
      }),
      { numRuns: Number(process.env.REVIEW_RUNS ?? 600) },
    );
  });

  it('draws every narrow standalone BMP character right after an SGR code, and after each other, as Ink does', () => {
    // Ink's tokenizer drops a character that joins the code's closing "m" into one grapheme.
    for (let i = 0; i < narrowCodes.length; i += 64) {
      const chars = narrowCodes.slice(i, i + 64).map((code) => String.fromCharCode(code));
      const row = chars.map((char, j) => `${esc}${31 + (j % 7)}m${char}`).join('') + `${esc}39m` + chars.join('');
      const ops: OutputOp[] = [{ kind: 'write', x: 0, y: 0, text: row, transform: 0 }];
      expect(draw(new Output({ width: 200, height: 1 }), ops)).toEqual(draw(new InkOutput({ width: 200, height: 1 }), ops));
    }
  });

  it('draws 3000 distinct 256-colour and 24-bit styles in one frame (the bounded caches clear mid-frame) as Ink does, twice', async () => {
    const rows: string[] = [];
    for (let y = 0; y < 60; y++) {
      let row = '';
      for (let x = 0; x < 50; x++) {
        const n = y * 50 + x;
        const code = n < 256 ? `38;5;${n}` : n < 512 ? `48;5;${n - 256}` : `38;2;${n % 256};${(n >> 8) % 256};${y}`;
        row += `${esc}${code}m${x % 3 === 0 ? '│' : x % 3 === 1 ? '⠋' : 'a'}${x % 5 === 0 ? `${esc}1m` : ''}`;
      }
      rows.push(`${row}${esc}0m`);
    }
    const ops: OutputOp[] = rows.map((row, y) => ({ kind: 'write', x: y % 3, y, text: row, transform: y % 3 }));
    for (let round = 0; round < 3; round++) {
      expect(draw(new Output({ width: 60, height: 60 }), ops)).toEqual(draw(new InkOutput({ width: 60, height: 60 }), ops));
      if (round === 1) await Promise.resolve();
    }
  });
});
