import { Chalk } from 'chalk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
// Ink's own Output, which the bundle replaces (scripts/build.mjs): the port must draw what it draws.
import InkOutput from '../../node_modules/ink/build/output.js';
import Output from '../../source/ui/ink-output.js';
import { frameCacheEntries } from '../../source/ui/frame-cache.js';
import { drawOps, type OutputOp } from '../helpers/draw-output.js';

const chalk = new Chalk({ level: 3 });

type Op = OutputOp;

const transformers: ((line: string, index: number) => string)[][] = [[], [(line) => chalk.dim(line)], [(line, index) => `${index}>${line}`, (line) => chalk.yellow(line)]];

// Plain and wide characters, combining marks (alone too: after a code, they join the character before it
// in the text but not in Ink's tokens), emoji, box drawing, dashes, a soft hyphen, a halfwidth kana voicing
// mark, a symbol made wide by a variation selector, tabs, and styles that span several.
const piece = fc.oneof(
  fc.constantFrom('a', 'hello', ' ', '漢字', '👍', 'é', 'e\u0301', '\u0301', '│', '⠋', '\t', '·', 'w0x12 ', '— “quoted”…', '\u00ad', 'ｶﾞ', '\uff9e', '✔', '✔\ufe0f', '⌚', 'Ж'),
  fc.tuple(fc.constantFrom('x', 'styled text', '全角', '\u0301', '│ ⠋'), fc.constantFrom(chalk.red, chalk.bold, chalk.bgBlue, chalk.underline.green, chalk.dim)).map(([text, style]) => style(text)),
);
const text = fc.array(fc.oneof(piece, fc.constant('\n')), { minLength: 0, maxLength: 12 }).map((parts) => parts.join(''));
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('write' as const), x: fc.integer({ min: -3, max: 24 }), y: fc.integer({ min: -2, max: 8 }), text, transform: fc.integer({ min: 0, max: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('clip' as const), x1: fc.option(fc.integer({ min: -1, max: 10 }), { nil: undefined }), x2: fc.option(fc.integer({ min: 5, max: 22 }), { nil: undefined }), y1: fc.option(fc.integer({ min: -1, max: 3 }), { nil: undefined }), y2: fc.option(fc.integer({ min: 2, max: 8 }), { nil: undefined }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'unclip' as const }) },
);
// Lines of one-column characters and colour codes only (every row of the run view: ASCII, a spinner, a
// border, "·"): drawn from runs of one style.
const asciiPiece = fc.oneof(
  fc.constantFrom('a', 'hello', ' ', '  ', 'w0x12 ', '4/10 done', '|', '⠋', '│ ', ' · ', '—', 'é'),
  fc.tuple(fc.constantFrom('x', 'styled text', ' padded ', '│', '✔ done'), fc.constantFrom(chalk.red, chalk.bold, chalk.bgBlue, chalk.underline.green, chalk.dim, chalk.dim.bold)).map(([text, style]) => style(text)),
);
const asciiText = fc.array(fc.oneof(asciiPiece, fc.constant('\n')), { minLength: 0, maxLength: 10 }).map((parts) => parts.join(''));
const asciiWrite: fc.Arbitrary<Op> = fc.record({ kind: fc.constant('write' as const), x: fc.integer({ min: 0, max: 26 }), y: fc.integer({ min: 0, max: 5 }), text: asciiText, transform: fc.integer({ min: 0, max: 2 }) });
const asciiFrame = fc.record({ width: fc.integer({ min: 1, max: 24 }), height: fc.integer({ min: 1, max: 6 }), ops: fc.array(asciiWrite, { maxLength: 8 }) });

const frame = fc.record({ width: fc.integer({ min: 1, max: 20 }), height: fc.integer({ min: 0, max: 7 }), ops: fc.array(op, { maxLength: 10 }) });

const draw = (output: InkOutput | Output, ops: readonly Op[]) => drawOps(output, ops, transformers);

describe('the bundle\'s Output (source/ui/ink-output.ts)', () => {
  it('draws every frame as Ink 6.8\'s Output does, frame after frame (what it learnt in one never changes the next)', () => {
    // Several frames a run, reusing lines: the caches that outlive a frame are exercised as the run view does.
    fc.assert(
      fc.property(fc.array(frame, { minLength: 1, maxLength: 6 }), (frames) => {
        for (const { width, height, ops } of [...frames, ...frames]) {
          expect(draw(new Output({ width, height }), ops)).toEqual(draw(new InkOutput({ width, height }), ops));
        }
      }),
      { numRuns: 400 },
    );
  });

  it('draws rows of one-column characters and colour codes (side by side, over each other, past the width) as Ink 6.8\'s Output does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(asciiFrame, { minLength: 1, maxLength: 4 }), async (frames) => {
        for (const { width, height, ops } of [...frames, ...frames]) {
          expect(draw(new Output({ width, height }), ops)).toEqual(draw(new InkOutput({ width, height }), ops));
          // A turn of the event loop between frames: what the caches keep is let go as in a run.
          await Promise.resolve();
        }
      }),
      { numRuns: 400 },
    );
  });

  it('draws a run view\'s frame again from what it learnt, unchanged, and a changed row anew', () => {
    const rows = ['⠋  1 worker 1.2 s', '      │ the answer so far', '      │ w0x1 w0x2 w0x3', '4/10 done · 2 skipped (completed earlier)'];
    const frameWith = (output: InkOutput | Output, last: string) => {
      rows.forEach((row, y) => output.write(0, y, row, { transformers: [] }));
      output.write(8, 2, last, { transformers: [(line) => chalk.dim(line)] });
      return output.get().output;
    };
    const first = frameWith(new Output({ width: 60, height: 4 }), 'w0x4');
    expect(frameWith(new Output({ width: 60, height: 4 }), 'w0x4')).toBe(first);
    const changed = frameWith(new Output({ width: 60, height: 4 }), 'w0x5 w0x6');
    expect(changed).toBe(frameWith(new InkOutput({ width: 60, height: 4 }), 'w0x5 w0x6'));
    expect(changed).not.toBe(first);
  });

  it('keeps what the last frames used: 3,000 frames of new streamed text leave a few entries, not 3,000', async () => {
    for (let frame = 0; frame < 3000; frame++) {
      const output = new Output({ width: 40, height: 3 });
      output.write(0, 0, '⠋ 1 worker', { transformers: [] });
      output.write(0, 1, `│ w${frame}x1 w${frame}x2 w${frame}x3`, { transformers: [] });
      output.write(0, 2, `│ and more words ${frame}`, { transformers: [(line) => chalk.dim(line)] });
      output.get();
      // The caches turn at the first Output drawn in a turn of the event loop.
      await Promise.resolve();
    }
    expect(frameCacheEntries()).toBeLessThan(50);
  });
});
