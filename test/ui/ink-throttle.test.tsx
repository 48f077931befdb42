import { render, Text } from 'ink';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { fakeTerminal } from '../helpers/fake-terminal.js';

// Ink draws only a final frame where it thinks it runs in CI (is-in-ci reads CI once, as Ink loads):
// this file draws every frame, as on a person's terminal.
const ci = vi.hoisted(() => {
  const was = { CI: process.env.CI, CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION };
  process.env.CI = '0';
  process.env.CONTINUOUS_INTEGRATION = '0';
  return was;
});
afterAll(() => {
  for (const [name, value] of Object.entries(ci)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/** React has committed what was asked (its scheduler runs on a later turn of the event loop). */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe("Ink's frame throttle (patches/ink)", () => {
  // FIXED: patches/ink (ink.js throttle): es-toolkit's throttle set a timer after every frame drawn at once — the process
  // woke twice a frame with nothing to do, ~2.3 ms of CPU a second of the run view (bench frames: 17.2 → 12.9 ms quiet).
  it('sets no timer for a frame drawn at once, and draws a frame asked for too soon once the wait is over', async () => {
    const { stdout, stdin } = fakeTerminal(80, 24);
    const options = { stdout: stdout as unknown as NodeJS.WriteStream, stdin: stdin as unknown as NodeJS.ReadStream, patchConsole: false, exitOnCtrlC: false, maxFps: 60 };
    const instance = render(<Text>frame 1</Text>, options);
    const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    // Past the throttle's wait: the next frame may be drawn at once.
    await wait(40);
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
    await wait(40);
    expect(stdout.written()).toContain('frame 3');
    instance.unmount();
  });
});
