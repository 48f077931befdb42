import { describe, expect, it, vi } from 'vitest';
import { createChangesStore, type ChangeView } from '../../source/state/changes-store.js';
import { createTornWriteStore } from '../../source/state/torn-write-store.js';
import { TornWritePrompt } from '../../source/ui/torn/torn-write-prompt.js';
import { keys, renderInk } from '../helpers/ink.js';

const torn: ChangeView[] = [{ path: '/w/notes.md', shown: 'notes.md', kind: 'modified', size: 23, changedAgo: null, lastSeen: 'torn by step 1' }];
const diff = ['--- notes.md (snapshot)', '+++ notes.md (torn)', '@@ -1,1 +1,1 @@', '-old notes', '+first lin'];

function setup() {
  const onDecide = vi.fn();
  const files = createChangesStore({ sessionId: 'abcd1234', changes: torn, loadDiff: () => diff, onDecide: () => undefined });
  const store = createTornWriteStore({ files, onDecide });
  const ui = renderInk(<TornWritePrompt store={store} files={files} />);
  return { ui, onDecide };
}

/** Sends a key once the select list listens (it subscribes in an effect, after its first frame). */
async function press(ui: ReturnType<typeof setup>['ui'], key: string, then: (frame: string) => boolean) {
  await new Promise((resolve) => setImmediate(resolve));
  ui.stdin.write(key);
  return ui.waitForFrame(then);
}

describe('the torn-write question', () => {
  it('names the torn file and offers roll back and retry · retry over it · view · abort', () => {
    const { ui } = setup();
    const frame = ui.frame();
    expect(frame).toContain('⚠ 1 write was torn when session abcd1234 stopped');
    expect(frame).toContain('notes.md torn by step 1');
    expect(frame).toMatch(/❯ Roll back and retry — restore the file from its snapshot, then run the step again\n {2}Retry over it[^\n]*\n {2}View the torn file[^\n]*\n {2}Abort — the session stays exactly as it was/);
    expect(frame).toContain('↑↓ choose · Enter select · Ctrl+C abort');
  });

  it('rolls back on Enter, the first choice', async () => {
    const { ui, onDecide } = setup();
    await press(ui, keys.enter, (f) => f.includes('→ rolling the torn write back, then retrying the step'));
    expect(onDecide).toHaveBeenCalledWith('rollback');
  });

  it('shows the torn file against its snapshot, and Esc returns to the choices where they were', async () => {
    const { ui, onDecide } = setup();
    await press(ui, keys.down, (f) => /❯ Retry over it/.test(f));
    await press(ui, keys.down, (f) => /❯ View the torn file/.test(f));
    const frame = await press(ui, keys.enter, (f) => f.includes('+++ notes.md (torn)'));
    expect(frame).toContain('-old notes');
    expect(frame).toContain('+first lin');
    await press(ui, keys.escape, (f) => /❯ View the torn file/.test(f));
    await press(ui, keys.down, (f) => /❯ Abort/.test(f));
    await press(ui, keys.enter, (f) => f.includes('→ aborted: the session is unchanged'));
    expect(onDecide).toHaveBeenCalledWith('abort');
  });

  it('acts on keys that arrive together one after another: Down Down Enter views the torn file', async () => {
    // ink-select-input read each key against the choice of its last frame: three Downs moved one
    // row, and Enter took the first choice — a rollback where the person asked to view.
    const { ui, onDecide } = setup();
    await press(ui, keys.down + keys.down + keys.enter, (f) => f.includes('+++ notes.md (torn)'));
    expect(onDecide).not.toHaveBeenCalled();
    await press(ui, keys.escape, (f) => /❯ View the torn file/.test(f));
    await press(ui, keys.up + keys.up + keys.up, (f) => /❯ Abort/.test(f));
  });

  it("takes a choice by its number, as ink-select-input's keys did: 3 views the torn file, 4 aborts", async () => {
    const { ui, onDecide } = setup();
    await press(ui, '3', (f) => f.includes('+++ notes.md (torn)'));
    await press(ui, keys.escape, (f) => /❯ View the torn file/.test(f));
    await press(ui, '4', (f) => f.includes('→ aborted: the session is unchanged'));
    expect(onDecide).toHaveBeenCalledExactlyOnceWith('abort');
  });

  it('aborts on Ctrl+C', async () => {
    const { ui, onDecide } = setup();
    await press(ui, keys.ctrlC, (f) => f.includes('→ aborted'));
    expect(onDecide).toHaveBeenCalledExactlyOnceWith('abort');
  });
});
