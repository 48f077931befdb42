import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import wrapAnsi from 'wrap-ansi';
// Ink's own, as patches/ink+6.8.0.patch leaves them (the bundle and these tests load the same files).
import inkWrapText from '../../node_modules/ink/build/wrap-text.js';

describe("Ink's text caches (patches/ink: measure-text.js, wrap-text.js)", () => {
  // FIXED: patches/ink (wrap-text.js), Ink #998: the key ran the text and the width together.
  it('wrap two texts that Ink 6.8 took for one (a text and its width run together) each as itself', () => {
    // "w1 w1 w1" at 23 columns and "w1 w1 w12" at 3 were both "w1 w1 w123wrap": the second was given the first's text.
    expect(inkWrapText('w1 w1 w1', 23, 'wrap')).toBe('w1 w1 w1');
    expect(inkWrapText('w1 w1 w12', 3, 'wrap')).toBe(wrapAnsi('w1 w1 w12', 3, { trim: false, hard: true }));
    expect(inkWrapText('w1 w1 w12', 3, 'wrap').split('\n')).toHaveLength(3);
  });

  // FIXED: patches/ink (both files), Ink #986: every text ever measured or wrapped was kept for good.
  it('keep a bounded number of texts: 10,000 new 2 KB texts measured and wrapped leave the heap a few MB larger, not 25', () => {
    // In a process of its own, with gc exposed: the heap after collecting, before and after.
    const program = `
      const { default: measureText } = await import(${JSON.stringify(new URL('../../node_modules/ink/build/measure-text.js', import.meta.url).href)});
      const { default: wrapText } = await import(${JSON.stringify(new URL('../../node_modules/ink/build/wrap-text.js', import.meta.url).href)});
      const heap = () => { gc(); gc(); return process.memoryUsage().heapUsed; };
      measureText('warm'); wrapText('warm', 80, 'end');
      const before = heap();
      for (let i = 0; i < 10000; i++) {
        const text = 'w' + i + ' ' + 'streamed words '.repeat(136);
        measureText(text);
        // 'end' leaves a text as it is (no work to wait for), and keeps it, keyed, in the cache all the same.
        wrapText(text, 80, 'end');
      }
      console.log(JSON.stringify({ grownMb: (heap() - before) / 1024 / 1024 }));`;
    const child = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', program], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    const { grownMb } = JSON.parse(child.stdout) as { grownMb: number };
    // Unbounded (Ink 6.8 as published), the two caches held them all: 24.7 MB; bounded, 2.4 MB.
    expect(grownMb).toBeLessThan(10);
  });
});
