import { Text, useInput } from 'ink';
import { useStore } from 'zustand';
import type { ChangesStore } from '../../state/changes-store.js';
import { changesBindings as c, diffBindings as d, matches } from '../keys/bindings.js';
import { ChangedFileList } from './changed-file-list.js';
import { DiffView } from './diff-view.js';

/** [C]ontinue / [A]bort / [V]iew: the list, or the diff of the selected file. */
export function ChangesPrompt({ store }: { store: ChangesStore }) {
  const mode = useStore(store, (s) => s.mode);
  const decision = useStore(store, (s) => s.decision);
  const count = useStore(store, (s) => s.changes.length);
  useInput((input, key) => {
    const s = store.getState();
    if (s.decision) return;
    // Ctrl+C stops from the diff too, as the torn-write prompt's does; a and A stay list keys, where they are shown.
    if (key.ctrl && matches(c['changes.abort'], input, key)) return s.decide('abort');
    if (s.mode === 'list') {
      if (matches(c['changes.continue'], input, key)) s.decide('continue');
      else if (matches(c['changes.abort'], input, key)) s.decide('abort');
      else if (matches(c['changes.view'], input, key)) s.openDiff();
      else if (matches(c['changes.up'], input, key)) s.move(-1);
      else if (matches(c['changes.down'], input, key)) s.move(1);
      return;
    }
    if (matches(d['diff.back'], input, key)) s.back();
    else if (matches(d['diff.prev'], input, key)) s.switchFile(-1);
    else if (matches(d['diff.next'], input, key)) s.switchFile(1);
    else if (matches(d['diff.up'], input, key)) s.scrollBy(-1);
    else if (matches(d['diff.down'], input, key)) s.scrollBy(1);
    else if (matches(d['diff.pageUp'], input, key)) s.scrollBy(-s.pageSize);
    else if (matches(d['diff.pageDown'], input, key)) s.scrollBy(s.pageSize);
  });
  // The answer replaces the prompt, so the scrollback keeps one line, not the whole screen.
  if (decision) return <Text color={decision === 'continue' ? 'green' : 'red'}>{decision === 'continue' ? `→ continuing: ${count} changed file${count === 1 ? '' : 's'} accepted` : '→ aborted: the session is unchanged'}</Text>;
  return mode === 'list' ? <ChangedFileList store={store} /> : <DiffView store={store} />;
}
