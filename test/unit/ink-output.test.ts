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

// Transformers that add codes of every kind: dim, 256-colour per line index, a hyperlink (OSC 8), resets in both spellings.
const codeTransformers: ((line: string, index: number) => string)[][] = [
  [],
  [(line) => `\x1b[2m${line}\x1b[22m`],
  [(line, index) => `\x1b[38;5;${index}m${line}\x1b[39m`],
  [(line) => `\x1b]8;;https://example.com\x07${line}\x1b]8;;\x07`],
  [(line) => `\x1b[0m${line}\x1b[m`],
];

const drawWithCodes = (output: InkOutput | Output, ops: readonly Op[]) => drawOps(output, ops, codeTransformers);

// SGR codes the fast path reads (256-colour, truecolor, compound, malformed 38;5 / 38;2, both resets,
// empty parameters, intensity pairs) and escapes it must leave to the slow path (OSC 8, non-SGR CSI,
// a lone ESC, an unterminated CSI).
const codes = [
  '\x1b[31m', '\x1b[39m', '\x1b[0m', '\x1b[m', '\x1b[1m', '\x1b[2m', '\x1b[22m', '\x1b[38;5;123m', '\x1b[48;5;2m', '\x1b[38;2;1;2;3m', '\x1b[48;2;9;9;9m',
  '\x1b[1;31m', '\x1b[38;5m', '\x1b[38;2;1m', '\x1b[;m', '\x1b[;31;m', '\x1b[49m', '\x1b[4m', '\x1b[24m', '\x1b[7m', '\x1b[27m', '\x1b[9m', '\x1b[99m',
  '\x1b[0;1;2;3m', '\x1b[38;5;1;4m', '\x1b[22;1m', '\x1b[53m', '\x1b[21m', '\x1b]8;;u\x07', '\x1b]8;;\x07', '\x1b[2K', '\x1b[1;31', '\x1b[', '\x1b',
];
const opsOf = (piece: fc.Arbitrary<string>): fc.Arbitrary<Op[]> => {
  const text = fc.array(fc.oneof({ weight: 8, arbitrary: piece }, { weight: 1, arbitrary: fc.constant('\n') }), { maxLength: 12 }).map((parts) => parts.join(''));
  const op: fc.Arbitrary<Op> = fc.oneof(
    { weight: 6, arbitrary: fc.record({ kind: fc.constant('write' as const), x: fc.integer({ min: -3, max: 24 }), y: fc.integer({ min: -1, max: 5 }), text, transform: fc.integer({ min: 0, max: 4 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('clip' as const), x1: fc.option(fc.integer({ min: -1, max: 10 }), { nil: undefined }), x2: fc.option(fc.integer({ min: 0, max: 22 }), { nil: undefined }), y1: fc.option(fc.integer({ min: -1, max: 3 }), { nil: undefined }), y2: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }) }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'unclip' as const }) },
  );
  return fc.array(op, { maxLength: 8 });
};
const framesOf = (piece: fc.Arbitrary<string>) => fc.array(fc.record({ width: fc.integer({ min: 0, max: 20 }), height: fc.integer({ min: 0, max: 6 }), ops: opsOf(piece) }), { minLength: 1, maxLength: 4 });

describe('the Output against Ink 6.8\'s, with escape codes of every kind', () => {
  it('draws frames of ASCII with every kind of escape code (256-colour, truecolor, resets, hyperlinks, non-SGR CSI, lines that are only codes) as Ink does, frame after frame, with and without a turn of the event loop between', async () => {
    const ascii = fc.oneof(fc.constantFrom(...codes), fc.constantFrom('a', 'bc', ' ', '   ', 'x y', '~', '{}'));
    await fc.assert(
      fc.asyncProperty(framesOf(ascii), fc.boolean(), async (frames, turnBetween) => {
        for (const { width, height, ops } of [...frames, ...frames]) {
          expect(drawWithCodes(new Output({ width, height }), ops)).toEqual(drawWithCodes(new InkOutput({ width, height }), ops));
          if (turnBetween) await Promise.resolve();
        }
      }),
      { numRuns: 600 },
    );
  });

  it('draws the same codes mixed with wide, combining and tab characters (the slow path) as Ink does', async () => {
    const mixed = fc.oneof(fc.constantFrom(...codes), fc.constantFrom('a', 'bc', ' ', '漢', '\t', 'é', 'e\u0301', '👍'));
    await fc.assert(
      fc.asyncProperty(framesOf(mixed), async (frames) => {
        for (const { width, height, ops } of [...frames, ...frames]) {
          expect(drawWithCodes(new Output({ width, height }), ops)).toEqual(drawWithCodes(new InkOutput({ width, height }), ops));
          await Promise.resolve();
        }
      }),
      { numRuns: 300 },
    );
  });

  it('never shows a stale row when a line leaves the caches and comes back (new line ids), whatever frames come between', async () => {
    const rowsOf = (frame: number) => [`\x1b[2mframe ${frame % 3}\x1b[22m`, `\x1b[38;5;${frame % 2}mtail\x1b[39m`, frame % 4 === 0 ? 'only every fourth' : 'the others'];
    for (let frame = 0; frame < 12; frame++) {
      const fresh = new InkOutput({ width: 30, height: 3 });
      const port = new Output({ width: 30, height: 3 });
      for (const output of [fresh, port]) rowsOf(frame).forEach((row, y) => output.write(frame % 5, y, row, { transformers: [] }));
      expect(port.get()).toEqual(fresh.get());
      // Some frames in one turn (caches turn once), others a turn apart.
      if (frame % 3 !== 0) await new Promise((resolve) => setImmediate(resolve));
    }
  });

  // Was: the run fast path (drawRuns, new in 75f09ca) drew a write at a non-integer column,
  // which Ink's Output drops (a non-index property of its row array). Not reachable from Ink's Yoga
  // layout (rounded to whole cells); such a row now takes the slow path, which agrees with Ink.
  it('a write at a fractional column is drawn as Ink draws it (Ink: nothing; the run fast path: " ab")', () => {
    const ink = new InkOutput({ width: 10, height: 1 });
    const port = new Output({ width: 10, height: 1 });
    for (const output of [ink, port]) output.write(1.5, 0, 'ab', { transformers: [] });
    expect(port.get()).toEqual(ink.get());
  });
});
