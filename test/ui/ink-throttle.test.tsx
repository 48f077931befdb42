import '../helpers/every-frame.js';
import { render, Text } from 'ink';
import { describe, expect, it, vi } from 'vitest';
import { fakeTerminal } from '../helpers/fake-terminal.js';

/** React has committed what was asked (its scheduler runs on a later turn of the event loop). */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe("Ink's frame throttle (patches/ink)", () => {
  // FIXED: patches/ink (ink.js throttle): es-toolkit's throttle set a timer after every frame drawn at once — the process
  // woke twice a frame with nothing to do, ~2.3 ms of CPU a second of the run view (bench frames: 17.2 → 12.9 ms quiet).
  it('sets no timer for a frame drawn at once, and draws a frame asked for too soon once the wait is over', async () => {
    const { stdout, stdin } = fakeTerminal(80, 24);
    const options = { stdout: stdout as unknown as NodeJS.WriteStream, stdin: stdin as unknown as NodeJS.ReadStream, patchConsole: false, exitOnCtrlC: false, maxFps: 2 };
    const instance = render(<Text>frame 1</Text>, options);
    const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    // Time past the throttle's wait (500 ms at 2 fps: wide enough that a loaded machine's slow turns of the
    // event loop stay inside it) is the point: the next frame may be drawn at once.
    await wait(600);
    /** The timers set while `step` runs and React commits what it asked (its scheduler runs on setImmediate). */
    const timersSetBy = async (step: () => void) => {
      const spy = vi.spyOn(globalThis, 'setTimeout');
      try {
        step();
        await settled();
        return spy.mock.calls.length;
      } finally {
        spy.mockRestore();
      }
    };
    expect(await timersSetBy(() => instance.rerender(<Text>frame 2</Text>))).toBe(0);
    expect(stdout.written()).toContain('frame 2');
    // Asked for within the wait: drawn later, by one timer.
    expect(await timersSetBy(() => instance.rerender(<Text>frame 3</Text>))).toBe(1);
    expect(stdout.written()).not.toContain('frame 3');
    // Drawn once its wait is over, by that timer: the frame shows.
    await vi.waitFor(() => expect(stdout.written()).toContain('frame 3'), { timeout: 3000, interval: 5 });
    instance.unmount();
  });
});
