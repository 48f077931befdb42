import { render } from 'ink';
import type { BrowserStore } from '../../state/browser-store.js';
import { BrowserApp } from './browser-app.js';

const enterAlternateScreen = '\u001B[?1049h\u001B[H';
const leaveAlternateScreen = '\u001B[?1049l\u001B[?25h';

/**
 * Runs the browser full-screen (alternate screen) until the person quits or picks a session to
 * resume. The terminal is restored on exit, on Ctrl+C, on SIGTERM and on a crash.
 */
export async function runBrowser(store: BrowserStore): Promise<void> {
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    process.stdout.write(leaveAlternateScreen);
  };
  const onTerm = () => store.getState().exit();
  process.stdout.write(enterAlternateScreen);
  process.once('exit', restore);
  process.on('SIGTERM', onTerm);
  try {
    const instance = render(<BrowserApp store={store} />, { exitOnCtrlC: false, patchConsole: false });
    await instance.waitUntilExit();
  } finally {
    process.off('SIGTERM', onTerm);
    process.off('exit', restore);
    restore();
  }
}
