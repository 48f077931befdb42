import type { BrowserStore } from '../../state/browser-store.js';
import { browserBindings as b, confirmBindings, matches } from '../keys/bindings.js';
import { keysOfChunk, type KeyEvent } from '../keys/chunk-keys.js';
import { withoutLastGrapheme } from '../keys/graphemes.js';
import { handleStepViewKey } from './step-view-keys.js';

/** Keys while typing a search: text edits the query, Enter keeps it, Esc clears it. */
function handleSearchKey(store: BrowserStore, input: string, key: KeyEvent): void {
  const s = store.getState();
  if (key.return) s.endSearch(true);
  else if (key.escape) s.endSearch(false);
  else if (key.backspace || key.delete) s.typeSearch(withoutLastGrapheme(s.query));
  else if (key.upArrow) s.move(-1);
  else if (key.downArrow) s.move(1);
  else if (input && !key.ctrl && !key.meta) s.typeSearch(s.query + input);
}

/**
 * One key press in the browser: overlays first, then the search line, then the list. Esc backs
 * out of whatever is open and never quits: q (or Ctrl+C) does.
 */
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
  const steps = s.stepView.getState();
  if (steps.session || steps.loading) return handleStepViewKey(store, input, key);
  if (s.searching) return handleSearchKey(store, input, key);
  if (matches(b['browser.up'], input, key)) s.move(-1);
  else if (matches(b['browser.down'], input, key)) s.move(1);
  else if (matches(b['browser.pageUp'], input, key)) s.page(-1);
  else if (matches(b['browser.pageDown'], input, key)) s.page(1);
  else if (matches(b['browser.first'], input, key)) s.jump('first');
  else if (matches(b['browser.last'], input, key)) s.jump('last');
  else if (matches(b['browser.open'], input, key)) s.enter();
  else if (matches(b['browser.steps'], input, key)) s.openSteps();
  else if (matches(b['browser.resume'], input, key)) s.resumeSelected();
  else if (matches(b['browser.search'], input, key)) s.startSearch();
  else if (matches(b['browser.filter'], input, key)) s.cycleFilter(1);
  else if (matches(b['browser.filterBack'], input, key)) s.cycleFilter(-1);
  else if (matches(b['browser.scope'], input, key)) s.cycleScope();
  else if (matches(b['browser.delete'], input, key)) s.ask('delete');
  else if (matches(b['browser.unlock'], input, key)) s.ask('unlock');
  else if (matches(b['browser.refresh'], input, key)) s.refresh();
  else if (matches(b['browser.help'], input, key)) s.toggleHelp();
  else if (matches(b['browser.back'], input, key)) {
    if (s.query) s.endSearch(false);
  } else if (matches(b['browser.quit'], input, key)) s.exit();
}

/**
 * Keys typed while the browser was loading or busy arrive as one chunk ("jj", "/kube\r", pasted
 * text): they act one at a time, as typed — except text typed into a search, which goes in at
 * once (one search, not one per letter). A key that opens a question (delete? unlock?) or closes
 * the browser ends the chunk: what follows was typed before the question showed, so it never
 * answers it. A message shown is gone at the next key, which then does what it always does.
 */
export function handleTyped(store: BrowserStore, input: string, key: KeyEvent): void {
  if (store.getState().message !== null) store.getState().dismissMessage();
  if (input.length < 2 || key.ctrl || key.meta || input.includes('\u001B')) {
    handleKey(store, input, key);
    return;
  }
  for (const [char, charKey] of keysOfChunk(input, () => store.getState().searching)) {
    const before = store.getState();
    handleKey(store, char, charKey);
    const after = store.getState();
    if ((after.overlay && after.overlay !== before.overlay) || after.quit || after.launch) return;
  }
}
