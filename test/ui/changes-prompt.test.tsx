import { describe, expect, it, vi } from 'vitest';
import { createChangesStore, type ChangeView } from '../../source/state/changes-store.js';
import { ChangesPrompt } from '../../source/ui/changes/changes-prompt.js';
import { keys, renderInk } from '../helpers/ink.js';

const changes: ChangeView[] = [
  { path: '/w/notes.md', shown: 'notes.md', kind: 'modified', size: 1300, changedAgo: '3m ago', lastSeen: 'the session last wrote it at step 1' },
  { path: '/w/data.csv', shown: 'data.csv', kind: 'deleted', size: 0, changedAgo: null, lastSeen: 'the session last read it at step 2' },
];

const diffs = [
  ['--- notes.md (session)', '+++ notes.md (now)', '@@ -1,2 +1,3 @@', ' # Notes', '-old line', '+new line', ...Array.from({ length: 60 }, (_, i) => `+added ${i}`)],
  ['--- data.csv (session)', '+++ data.csv (now)', '@@ -1,1 +0,0 @@', '-a,b,c'],
];

function setup() {
  const onDecide = vi.fn();
  const loadDiff = vi.fn((i: number) => diffs[i]!);
  const store = createChangesStore({ sessionId: 'abcd1234', changes, loadDiff, onDecide });
  const ui = renderInk(<ChangesPrompt store={store} />);
  return { ui, onDecide, loadDiff, store };
}

describe('the changed-file prompt', () => {
  it('lists each changed file with its change, size, age and what the session did with it', () => {
    const { ui } = setup();
    const frame = ui.frame();
    expect(frame).toContain('⚠ 2 files changed since session abcd1234 stopped');
    expect(frame).toMatch(/❯ modified notes\.md 1\.3 KB · changed 3m ago · the session last wrote it at step 1/);
    expect(frame).toMatch(/ {2}deleted +data\.csv gone · the session last read it at step 2/);
    expect(frame).toContain('[C]ontinue  [A]bort  [V]iew diff');
  });

  it('continues on C', async () => {
    const { ui, onDecide } = setup();
    ui.stdin.write('c');
    await ui.waitForFrame((f) => f.includes('continuing'));
    expect(onDecide).toHaveBeenCalledWith('continue');
    expect(ui.frame()).toContain('→ continuing: 2 changed files accepted');
  });

  it('aborts on A, and ignores keys after the answer', async () => {
    const { ui, onDecide } = setup();
    ui.stdin.write('a');
    await ui.waitForFrame((f) => f.includes('aborted'));
    ui.stdin.write('c');
    expect(onDecide.mock.calls).toEqual([['abort']]);
  });

  it('opens the coloured diff of the selected file on V, pages through it and goes back on Esc', async () => {
    const { ui, store } = setup();
    ui.stdin.write('v');
    let frame = await ui.waitForFrame((f) => f.includes('session’s copy vs now'));
    expect(frame).toContain('notes.md (1/2) · modified');
    expect(frame).toContain('-old line');
    expect(frame).toContain('+new line');
    expect(frame).toMatch(/▼ \d+ more/);
    ui.stdin.write(keys.pageDown);
    frame = await ui.waitForFrame((f) => f.includes('▲'));
    expect(store.getState().scroll).toBe(store.getState().pageSize);
    ui.stdin.write(keys.escape);
    frame = await ui.waitForFrame((f) => f.includes('[C]ontinue'));
    expect(frame).toContain('❯ modified notes.md');
  });

  it('moves between files with ←/→ in the diff and ↓ in the list', async () => {
    const { ui, loadDiff } = setup();
    ui.stdin.write('v');
    await ui.waitForFrame((f) => f.includes('(1/2)'));
    ui.stdin.write(keys.right);
    const frame = await ui.waitForFrame((f) => f.includes('(2/2)'));
    expect(frame).toContain('data.csv (2/2) · deleted');
    expect(frame).toContain('-a,b,c');
    ui.stdin.write(keys.left);
    await ui.waitForFrame((f) => f.includes('(1/2)'));
    ui.stdin.write(keys.escape);
    await ui.waitForFrame((f) => f.includes('[C]ontinue'));
    ui.stdin.write(keys.down);
    await ui.waitForFrame((f) => f.includes('❯ deleted'));
    expect(loadDiff.mock.calls.map((c) => c[0])).toEqual([0, 1, 0]);
  });
});
