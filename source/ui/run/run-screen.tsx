import { render, type RenderOptions } from 'ink';
import type { RunStore } from '../../state/run-store.js';
import { RunView } from './run-view.js';

export interface RunScreen {
  /** Renders the final frame and gives the terminal back. */
  close(): Promise<void>;
}

/**
 * How Ink draws the run view. Ctrl+C is the view's (pause), not Ink's (exit). Frames are written
 * a changed line at a time (`incrementalRendering`): the view is redrawn on every tick, and on most
 * ticks only a spinner and an elapsed time moved — a whole frame rewritten each time was half of
 * what the terminal was sent while a step ran, and twice that while its answer streamed (the tail's
 * rows, rewritten 10 times a second though they move 5 times).
 */
export const runScreenOptions = { exitOnCtrlC: false, patchConsole: false, maxFps: 60, incrementalRendering: true } as const satisfies RenderOptions;

/** Mounts the run view. */
export function openRunScreen(store: RunStore, onForceQuit: () => void): RunScreen {
  const instance = render(<RunView store={store} onForceQuit={onForceQuit} />, runScreenOptions);
  return {
    async close() {
      // Let React commit the last store update before Ink draws its final frame.
      await new Promise((resolve) => setImmediate(resolve));
      instance.unmount();
      await instance.waitUntilExit();
    },
  };
}
