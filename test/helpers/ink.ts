import { render } from 'ink-testing-library';
import type { ReactElement } from 'react';

/** Named keys, as a terminal sends them. */
export const keys = { ctrlC: '\u0003', enter: '\r', escape: '\u001B', up: '\u001B[A', down: '\u001B[B', right: '\u001B[C', left: '\u001B[D', pageDown: '\u001B[6~', pageUp: '\u001B[5~' } as const;

/** Renders and gives helpers that wait for the next frame instead of sleeping. */
export function renderInk(tree: ReactElement) {
  const instance = render(tree);
  const frame = () => instance.lastFrame() ?? '';
  /** Resolves once the frame satisfies `predicate` (polls each macrotask, fails after 2 s). */
  async function waitForFrame(predicate: (frame: string) => boolean): Promise<string> {
    const deadline = Date.now() + 2000;
    while (!predicate(frame())) {
      if (Date.now() > deadline) throw new Error(`frame never matched; last frame:\n${frame()}`);
      await new Promise((resolve) => setImmediate(resolve));
    }
    return frame();
  }
  return { ...instance, frame, waitForFrame };
}
