import { render } from 'ink';
import type { RunStore } from '../../state/run-store.js';
import { RunView } from './run-view.js';

export interface RunScreen {
  /** Renders the final frame and gives the terminal back. */
  close(): Promise<void>;
}

/** Mounts the run view; Ctrl+C is handled by the view (pause), not by Ink (exit). */
export function openRunScreen(store: RunStore, onForceQuit: () => void): RunScreen {
  const instance = render(<RunView store={store} onForceQuit={onForceQuit} />, { exitOnCtrlC: false, patchConsole: false, maxFps: 60 });
  return {
    async close() {
      // Let React commit the last store update before Ink draws its final frame.
      await new Promise((resolve) => setImmediate(resolve));
      instance.unmount();
      await instance.waitUntilExit();
    },
  };
}
