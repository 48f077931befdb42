import { Chalk } from 'chalk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import wrapAnsi from 'wrap-ansi';
// Ink's own, which the bundle replaces (scripts/build.mjs): the ports must give what they give.
import inkMeasureText from '../../node_modules/ink/build/measure-text.js';
import inkWrapText from '../../node_modules/ink/build/wrap-text.js';
import Output from '../../source/ui/ink-output.js';
import { measureText, wrapText } from '../../source/ui/ink-text-caches.js';
import { frameCacheEntries } from '../../source/ui/frame-cache.js';

const chalk = new Chalk({ level: 3 });
const piece = fc.oneof(fc.constantFrom('a', 'hello world', ' ', '\n', '漢字', 'é', 'e\u0301', '│', '⠋', 'w0x12 ', '— done…', '👍'), fc.constantFrom('x', 'styled text').map((text) => chalk.red(text)));
// Texts that end in a letter: Ink's wrapping cache keyed a text and a width run together, which a text ending in digits can collide in.
const text = fc.array(piece, { maxLength: 12 }).map((parts) => `${parts.join('')}x`);
const wrapTypes = ['wrap', 'end', 'middle', 'truncate-end', 'truncate', 'truncate-middle', 'truncate-start'] as const;

/** A frame drawn, as Ink draws one after its layout: the frame caches turn. */
const frameDrawn = async () => {
  new Output({ width: 10, height: 1 }).get();
  await Promise.resolve();
};

describe('Ink\'s measuring and wrapping with frame caches (source/ui/ink-text-caches.ts)', () => {
  it('measure and wrap every text as Ink 6.8 does, frame after frame', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(text, fc.integer({ min: 1, max: 30 }), fc.constantFrom(...wrapTypes)), { minLength: 1, maxLength: 8 }), async (cases) => {
        for (const [t, width, wrap] of [...cases, ...cases]) {
          expect(measureText(t)).toEqual(inkMeasureText(t));
          expect(wrapText(t, width, wrap)).toBe(inkWrapText(t, width, wrap));
          await frameDrawn();
        }
      }),
      { numRuns: 300 },
    );
    expect(measureText('')).toEqual(inkMeasureText(''));
  });

  it('wraps two texts Ink\'s cache took for one (a text and its width run together) each as itself', () => {
    // "w1 w1 w1" at 23 columns and "w1 w1 w12" at 3: both "w1 w1 w123wrap" to Ink, which gives the second the first's text.
    expect(inkWrapText('w1 w1 w1', 23, 'wrap')).toBe('w1 w1 w1');
    expect(inkWrapText('w1 w1 w12', 3, 'wrap')).toBe('w1 w1 w1');
    expect(wrapText('w1 w1 w1', 23, 'wrap')).toBe('w1 w1 w1');
    expect(wrapText('w1 w1 w12', 3, 'wrap')).toBe(wrapAnsi('w1 w1 w12', 3, { trim: false, hard: true }));
    expect(wrapText('w1 w1 w12', 3, 'wrap').split('\n')).toHaveLength(3);
  });

  it('keep what the last frames used: 3,000 frames of new streamed text leave a few entries, not 3,000', async () => {
    for (let frame = 0; frame < 3000; frame++) {
      const tail = `│ w${frame}x1 w${frame}x2 w${frame}x3\n│ and more words ${frame}`;
      measureText(tail);
      wrapText(tail, 20, 'truncate-end');
      measureText('⠋ 1 worker');
      await frameDrawn();
    }
    expect(frameCacheEntries()).toBeLessThan(50);
    // What a frame measures and wraps is kept in the frame caches (so the bound above is theirs), until frames go by without it.
    const before = frameCacheEntries();
    for (let i = 0; i < 200; i++) measureText(`measured ${i}`);
    expect(frameCacheEntries() - before).toBeGreaterThanOrEqual(200);
    for (let i = 0; i < 200; i++) wrapText(`wrapped ${i}`, 5, 'wrap');
    expect(frameCacheEntries() - before).toBeGreaterThanOrEqual(400);
    for (let frame = 0; frame < 3; frame++) await frameDrawn();
    expect(frameCacheEntries()).toBeLessThan(50);
  });
});
