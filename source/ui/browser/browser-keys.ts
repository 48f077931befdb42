import type { Key } from 'ink';
import type { BrowserStore } from '../../state/browser-store.js';
import { browserBindings as b, confirmBindings, matches } from '../keys/bindings.js';

type KeyEvent = Pick<Key, 'ctrl'> & Partial<Key>;

/** Keys while typing a search: text edits the query, Enter keeps it, Esc clears it. */
function handleSearchKey(store: BrowserStore, input: string, key: KeyEvent): void {
  const s = store.getState();
  // Typed while the app was busy, the text and its Enter arrive as one chunk.
  const enter = input.search(/[\r\n]/);
  if (enter > 0) {
    s.typeSearch(s.query + input.slice(0, enter));
    s.endSearch(true);
    return;
  }
  if (key.return) s.endSearch(true);
  else if (key.escape) s.endSearch(false);
  else if (key.backspace || key.delete) s.typeSearch(s.query.slice(0, -1));
  else if (key.upArrow) s.move(-1);
  else if (key.downArrow) s.move(1);
  else if (input && !key.ctrl && !key.meta) s.typeSearch(s.query + input);
}

/** One key press in the browser: overlays first, then the search line, then the list. */
function handleKey(store: BrowserStore, input: string, key: KeyEvent): void {
  const s = store.getState();
  if (key.ctrl && input === 'c') return s.exit();
  if (s.overlay) {
    if (s.overlay.kind === 'help') {
      if (matches(b['browser.help'], input, key) || key.escape || input === 'q') s.closeOverlay();
    } else if (matches(confirmBindings['confirm.yes'], input, key)) s.confirm();
    else if (matches(confirmBindings['confirm.no'], input, key)) s.closeOverlay();
    return;
  }
  if (s.searching) return handleSearchKey(store, input, key);
  if (matches(b['browser.up'], input, key)) s.move(-1);
  else if (matches(b['browser.down'], input, key)) s.move(1);
  else if (matches(b['browser.pageUp'], input, key)) s.page(-1);
  else if (matches(b['browser.pageDown'], input, key)) s.page(1);
  else if (matches(b['browser.first'], input, key)) s.jump('first');
  else if (matches(b['browser.last'], input, key)) s.jump('last');
  else if (matches(b['browser.resume'], input, key)) s.previewResume();
  else if (matches(b['browser.search'], input, key)) s.startSearch();
  else if (matches(b['browser.filter'], input, key)) s.cycleFilter();
  else if (matches(b['browser.scope'], input, key)) s.toggleScope();
  else if (matches(b['browser.delete'], input, key)) s.ask('delete');
  else if (matches(b['browser.unlock'], input, key)) s.ask('unlock');
  else if (matches(b['browser.refresh'], input, key)) s.refresh();
  else if (matches(b['browser.help'], input, key)) s.toggleHelp();
  else if (matches(b['browser.quit'], input, key)) {
    if (s.query) s.endSearch(false);
    else s.exit();
  }
}

/**
 * Keys typed while the browser was loading or busy arrive as one chunk of text ("jj", "/kube\r"):
 * they act one at a time, as typed, until a search starts — then the rest is the search's text.
 */
export function handleTyped(store: BrowserStore, input: string, key: KeyEvent): void {
  if (input.length < 2 || key.ctrl || key.meta || /[\u0000-\u000c\u000e-\u001f\u007f]/.test(input)) return handleKey(store, input, key);
  const typed = [...input];
  for (let i = 0; i < typed.length; i++) {
    const rest = typed.slice(i).join('');
    if (store.getState().searching) return handleSearchKey(store, rest, { ctrl: false, return: rest === '\r' });
    const char = typed[i]!;
    handleKey(store, char === '\r' ? '' : char, { ctrl: false, return: char === '\r' });
  }
}
