import cliTruncate from 'cli-truncate';
import widestLine from 'widest-line';
import wrapAnsi from 'wrap-ansi';
import { frameCache } from './frame-cache.js';

/**
 * Ink 6.8's measure-text.js and wrap-text.js, with one change: their caches keep what the last two
 * frames used (frame-cache.ts), where Ink's keep every text they ever saw. A streamed
 * answer's rows are a new text 5 times a second, a step's elapsed time a new one 10 times: hours of
 * a run were tens of MB held for good, in V8's old generation. Same results
 * (test/unit/ink-text-caches.test.ts compares them with Ink's), but for two texts that Ink's wrapping
 * cache took for one; scripts/build.mjs puts them in Ink's place in the bundle.
 */

interface Size {
  width: number;
  height: number;
}

const sizes = frameCache<Size>();

export function measureText(text: string): Size {
  if (text.length === 0) return { width: 0, height: 0 };
  let size = sizes.get(text);
  if (size === undefined) {
    size = { width: widestLine(text), height: text.split('\n').length };
    sizes.set(text, size);
  }
  return size;
}

type TextWrap = 'wrap' | 'end' | 'middle' | 'truncate-end' | 'truncate' | 'truncate-middle' | 'truncate-start';

const wrapped = frameCache<string>();

export function wrapText(text: string, maxWidth: number, wrapType: TextWrap): string {
  // Ink's key ran the three together: "w1" at 23 columns and "w12" at 3 shared one, and the second
  // was given the first's text. Here the width and the kind come first, each ended.
  const key = `${maxWidth}\0${wrapType}\0${text}`;
  const cached = wrapped.get(key);
  if (cached) return cached;
  let result = text;
  if (wrapType === 'wrap') result = wrapAnsi(text, maxWidth, { trim: false, hard: true });
  if (wrapType.startsWith('truncate')) {
    const position = wrapType === 'truncate-middle' ? 'middle' : wrapType === 'truncate-start' ? 'start' : 'end';
    result = cliTruncate(text, maxWidth, { position });
  }
  wrapped.set(key, result);
  return result;
}
