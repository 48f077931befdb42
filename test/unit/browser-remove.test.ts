import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSessionSource } from '../../source/commands/browser-source.js';
import { SessionLock } from '../../source/store/session-lock.js';
import { generatedStore } from '../helpers/browser-fixture.js';

describe("the browser's d (delete)", () => {
  // FIXED: source/commands/browser-source.ts: it looked at the lock, then deleted without it, so a
  // resume that took the session in between lost its folder under it.
  it('deletes under the session lock: refused while a live process holds it, done once it is let go', async () => {
    const { ctx, ids } = generatedStore(3);
    const id = ids[0]!;
    const dir = join(ctx.env.ACODE_HOME!, 'sessions', id);
    const source = await createSessionSource(ctx);
    // A resume takes the session just after d was answered, while the delete is on its way.
    const removing = source.remove(id);
    const held = SessionLock.acquire(dir, 60_000);
    if (!held.acquired) throw new Error('not acquired');
    await expect(removing).rejects.toThrow(`session ${id.slice(0, 8)} is running in pid ${process.pid}`);
    expect(existsSync(join(dir, 'session.json'))).toBe(true);
    expect(held.lock.stillOwned()).toBe(true);
    held.lock.release();
    await source.remove(id);
    expect(existsSync(dir)).toBe(false);
    // Deleted meanwhile by someone else: nothing to do, no error.
    await source.remove(id);
  });
});
