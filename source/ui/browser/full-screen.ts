import type { BrowserStore } from '../../state/browser-store.js';
import { tableRowsFor } from './browser-lines.js';
import { paintFirstFrame } from './first-paint.js';
import { terminalSize } from './terminal-size.js';

export const enterAlternateScreen = '\u001B[?1049h\u001B[?25l\u001B[H';
export const leaveAlternateScreen = '\u001B[?1049l\u001B[?25h';
const clearScreen = '\u001B[2J\u001B[H';

/** The browser's hold on the terminal, from its first frame until it closes. */
export interface FullScreen {
  /** Readies the screen for Ink's first frame, which is written from the top-left corner. */
  handOver(): void;
  /** Leaves the alternate screen and gives the terminal back as it was (once). */
  restore(): void;
}

const closingSignals = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/** Erase the scrollback (ED 3): the main screen's, even when written on the alternate screen. */
const eraseScrollback = '\u001B[3J';

/**
 * `stdout` for Ink on the alternate screen: what it writes, without erasing the scrollback. A
 * frame as tall as the terminal (the browser's always is) makes Ink clear the terminal with
 * ESC[2J ESC[3J ESC[H; the 3J erased the user's history on the main screen behind the browser,
 * every time the browser's frame changed. The alternate screen has no scrollback of its own.
 */
export function keepingScrollback(stdout: NodeJS.WriteStream): NodeJS.WriteStream {
  const write = (chunk: unknown, ...rest: unknown[]) =>
    (stdout.write as (...args: unknown[]) => boolean)(typeof chunk === 'string' ? chunk.replaceAll(eraseScrollback, '') : chunk, ...rest);
  return new Proxy(stdout, {
    get(target, property) {
      if (property === 'write') return write;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}


/**
 * Enters the alternate screen and paints the browser's first frame at once — before React and Ink
 * have loaded — from the store as it stands; Ink then draws the same frame over it. Keys typed
 * from then on wait unechoed (raw mode) and reach the browser when it is ready. The terminal is
 * restored on exit and on a crash; SIGTERM, SIGINT and SIGHUP close the browser.
 */
export function enterFullScreen(store: BrowserStore, stdout = process.stdout, stdin = process.stdin): FullScreen {
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    for (const signal of closingSignals) process.off(signal, onSignal);
    process.off('exit', restore);
    if (stdin.isTTY) stdin.setRawMode(false);
    stdout.write(leaveAlternateScreen);
  };
  // A signal from outside closes the browser (its own Ctrl+C is a key, in raw mode).
  const onSignal = () => store.getState().exit();
  process.once('exit', restore);
  for (const signal of closingSignals) process.on(signal, onSignal);

  const painted = terminalSize(stdout);
  store.getState().setPageSize(tableRowsFor(painted.rows));
  const frame = paintFirstFrame(store.getState(), painted, Date.now());
  stdout.write(enterAlternateScreen + (frame === null ? '' : `${frame}\u001B[H`));
  if (stdin.isTTY) stdin.setRawMode(true);
  return {
    handOver() {
      // A terminal resized since the paint: Ink's frame must not land on the old one.
      const now = terminalSize(stdout);
      if (frame === null || now.columns !== painted.columns || now.rows !== painted.rows) stdout.write(clearScreen);
    },
    restore,
  };
}
