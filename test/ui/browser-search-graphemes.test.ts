import { describe, expect, it } from 'vitest';
import { createSessionSource } from '../../source/commands/browser-source.js';
import { createBrowserStore } from '../../source/state/browser-store.js';
import { handleTyped } from '../../source/ui/browser/browser-keys.js';
import { generatedStore } from '../helpers/browser-fixture.js';

/** A browser store with its search line open; `type` sends one read of stdin, `backspace` the key alone. */
async function searching() {
  const fixture = generatedStore(3);
  const source = await createSessionSource(fixture.ctx);
  const store = createBrowserStore(source, fixture.cwd);
  handleTyped(store, '/', { ctrl: false });
  return {
    store,
    type: (chunk: string) => handleTyped(store, chunk, { ctrl: false }),
    // Ink reports the Backspace key (0x7f) as `delete`.
    backspace: () => handleTyped(store, '', { ctrl: false, delete: true }),
  };
}

describe("the browser search's Backspace", () => {
  it('deletes a whole emoji, never leaving half of it in the query', async () => {
    const { store, type, backspace } = await searching();
    type('ab😀');
    backspace();
    expect(store.getState().query).toBe('ab');
  });

  it('deletes a flag, an accent with its letter and a family emoji as one character each', async () => {
    const { store, type, backspace } = await searching();
    type('x🇫🇷e\u0301👩‍👩‍👧');
    backspace();
    expect(store.getState().query).toBe('x🇫🇷e\u0301');
    backspace();
    expect(store.getState().query).toBe('x🇫🇷');
    backspace();
    expect(store.getState().query).toBe('x');
  });

  it('deletes whole emoji when the Backspaces arrive in the same read as the text', async () => {
    const { store, type } = await searching();
    type('ab😀😀\u007f\u007fc');
    expect(store.getState().query).toBe('abc');
  });
});
