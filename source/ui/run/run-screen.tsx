import type { Instance, RenderOptions } from 'ink';
import { renderScreen } from '../screen-render.js';
import { TerminalSizeContext } from '../browser/use-terminal-size.js';
import { terminalSize } from '../browser/terminal-size.js';
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

/**
 * Mounts the run view on `options.stdout` (the process's by default), with Ink's options above. The
 * view hears a resize before Ink does: Ink's own listener, added as it starts, draws a frame of the
 * tree as it is, so the new size is rendered into the tree first, synchronously (rerender), by a
 * listener put in front of Ink's — a frame laid out for a wider terminal, wrapped at a narrower
 * one, grew taller than the terminal and made Ink clear the screen and its scrollback.
 */
export function mountRunView(store: RunStore, onForceQuit: () => void, options: RenderOptions = {}): Instance {
  const stdout = options.stdout ?? process.stdout;
  const tree = () => (
    <TerminalSizeContext.Provider value={terminalSize(stdout)}>
      <RunView store={store} onForceQuit={onForceQuit} />
    </TerminalSizeContext.Provider>
  );
  const instance = renderScreen(tree(), { ...runScreenOptions, ...options, fullScreen: false });
  const onResize = () => instance.rerender(tree());
  stdout.prependListener('resize', onResize);
  const off = () => stdout.off('resize', onResize);
  // Whichever way the view ends (an error is the caller's, from its own waitUntilExit).
  instance.waitUntilExit().then(off, off);
  return instance;
}

/** Mounts the run view. */
export function openRunScreen(store: RunStore, onForceQuit: () => void): RunScreen {
  const instance = mountRunView(store, onForceQuit);
  return {
    async close() {
      // Let React commit the last store update before Ink draws its final frame.
      await new Promise((resolve) => setImmediate(resolve));
      instance.unmount();
      await instance.waitUntilExit();
    },
  };
}
