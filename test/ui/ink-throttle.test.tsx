import { render, Text } from 'ink';
import { describe, expect, it } from 'vitest';
import { fakeTerminal } from '../helpers/fake-terminal.js';

/** Timers the process has now (Node's own count of its active handles of that kind). */
const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

/** React has committed what was asked (its scheduler runs on a later turn of the event loop). */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe("Ink's frame throttle (patches/ink)", () => {
  // FIXED: patches/ink (ink.js throttle): es-toolkit's throttle set a timer after every frame drawn at once — the process
  // woke twice a frame with nothing to do, ~2.3 ms of CPU a second of the run view (bench frames: 17.2 → 12.9 ms quiet).
  it('sets no timer for a frame drawn at once, and draws a frame asked for too soon once the wait is over', async () => {
    const { stdout, stdin } = fakeTerminal(80, 24);
    const options = { stdout: stdout as unknown as NodeJS.WriteStream, stdin: stdin as unknown as NodeJS.ReadStream, patchConsole: false, exitOnCtrlC: false, maxFps: 60 };
    const instance = render(<Text>frame 1</Text>, options);
    // Past the throttle's wait: the next frame may be drawn at once.
    await new Promise((resolve) => setTimeout(resolve, 40));
    const before = timers();
    instance.rerender(<Text>frame 2</Text>);
    await settled();
    expect(stdout.written()).toContain('frame 2');
    expect(timers()).toBe(before);
    // Asked for within the wait: drawn later, by one timer.
    instance.rerender(<Text>frame 3</Text>);
    await settled();
    expect(stdout.written()).not.toContain('frame 3');
    expect(timers()).toBe(before + 1);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(stdout.written()).toContain('frame 3');
    expect(timers()).toBe(before);
    instance.unmount();
  });
});
