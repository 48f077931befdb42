import type { Key } from 'ink';
import type { BrowserStore } from '../../state/browser-store.js';
import { matches, stepViewBindings as k } from '../keys/bindings.js';
import { whyNotResumable } from '../../state/not-resumable.js';

type KeyEvent = Pick<Key, 'ctrl'> & Partial<Key>;

/**
 * A key while the step view is open: in a response it scrolls, in the list it moves; Esc goes back
 * one level; r resumes through the browser's own plan → confirm → resume path; f forks from the
 * selected step through the same path (the plan of the fork, then Enter).
 */
export function handleStepViewKey(store: BrowserStore, input: string, key: KeyEvent): void {
  const view = store.getState().stepView.getState();
  const session = view.session;
  if (matches(k['steps.back'], input, key)) {
    if (view.detail) view.closeStep();
    else view.close();
    return;
  }
  if (!session) return; // still reading: only Esc counts
  if (matches(k['steps.up'], input, key)) return view.detail ? view.scroll(-1) : view.move(-1);
  if (matches(k['steps.down'], input, key)) return view.detail ? view.scroll(1) : view.move(1);
  if (matches(k['steps.pageUp'], input, key)) return view.page(-1);
  if (matches(k['steps.pageDown'], input, key)) return view.page(1);
  if (matches(k['steps.first'], input, key)) return view.detail ? view.scroll(-Infinity) : view.move(-Infinity);
  if (matches(k['steps.last'], input, key)) return view.detail ? view.scroll(Infinity) : view.move(Infinity);
  if (matches(k['steps.open'], input, key) && !view.detail) return view.openStep();
  if (matches(k['steps.fork'], input, key)) {
    const viewed = session.steps[view.selected];
    if (!viewed) return view.say(`session ${session.id.slice(0, 8)} has no steps to fork from`);
    return store.getState().previewFork(session.id, viewed.ref);
  }
  if (matches(k['steps.resume'], input, key)) {
    const elsewhere = store.getState().runningElsewhere(session.id);
    if (elsewhere) return view.say(elsewhere);
    if (!session.resumable) {
      const row = store.getState().set.rows.find((candidate) => candidate.session_id === session.id);
      return view.say((row && whyNotResumable({ ...row, resumable: false })) ?? `session ${session.id.slice(0, 8)} cannot be resumed now`);
    }
    view.close();
    store.getState().previewResume();
  }
}
