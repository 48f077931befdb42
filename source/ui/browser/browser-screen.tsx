import type { BrowserStore } from '../../state/browser-store.js';
import { BrowserApp } from './browser-app.js';
import { keepingScrollback, type FullScreen } from './full-screen.js';
import { renderScreen } from '../screen-render.js';

/**
 * Runs the browser in the full screen already showing its first frame, until the person quits or
 * picks a session to resume. `onShown` runs once Ink has drawn its frame (synchronously, in
 * render) and listens for keys.
 */
export async function runBrowser(store: BrowserStore, screen: FullScreen, onShown: () => void): Promise<void> {
  // SIGTERM before Ink was ready asked the browser to close: do not draw it at all.
  if (store.getState().quit) return;
  screen.handOver();
  const instance = renderScreen(<BrowserApp store={store} />, { stdout: keepingScrollback(process.stdout), exitOnCtrlC: false, patchConsole: false, fullScreen: true });
  // Ink starts reading keys in an effect, run on the next turn of the event loop.
  setImmediate(onShown);
  await instance.waitUntilExit();
}
