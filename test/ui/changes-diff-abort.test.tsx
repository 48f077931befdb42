import { describe, expect, it, vi } from 'vitest';
import { createChangesStore, type ChangeView } from '../../source/state/changes-store.js';
import { ChangesPrompt } from '../../source/ui/changes/changes-prompt.js';
import { keys, renderInk } from '../helpers/ink.js';

const changes: ChangeView[] = [{ path: '/w/notes.md', shown: 'notes.md', kind: 'modified', size: 1300, changedAgo: '3m ago', lastSeen: 'the session last wrote it at step 1' }];

function setup() {
  const onDecide = vi.fn();
  const store = createChangesStore({ sessionId: 'abcd1234', changes, loadDiff: () => ['--- notes.md (session)', '+++ notes.md (now)', '@@ -1 +1 @@', '-old line', '+new line'], onDecide });
  const ui = renderInk(<ChangesPrompt store={store} />);
  return { ui, onDecide };
}

describe("the changed-file prompt's diff view", () => {
  it('aborts on Ctrl+C, as the list does, without going back first', async () => {
    const { ui, onDecide } = setup();
    ui.stdin.write('v');
    await ui.waitForFrame((f) => f.includes('session’s copy vs now'));
    ui.stdin.write(keys.ctrlC);
    await ui.waitForFrame((f) => f.includes('→ aborted: the session is unchanged'));
    expect(onDecide.mock.calls).toEqual([['abort']]);
  });

  it('keeps a for the list: typed in the diff it neither aborts nor leaves the diff', async () => {
    const { ui, onDecide } = setup();
    ui.stdin.write('v');
    await ui.waitForFrame((f) => f.includes('session’s copy vs now'));
    ui.stdin.write('a');
    ui.stdin.write(keys.escape);
    await ui.waitForFrame((f) => f.includes('[C]ontinue'));
    expect(onDecide).not.toHaveBeenCalled();
  });
});
