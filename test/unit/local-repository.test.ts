import { existsSync, readFileSync, utimesSync } from 'node:fs';
import { initialProgress } from '../../source/engine/session-progress.js';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSpecText } from '../../source/spec/load-spec.js';
import type { SessionRepository } from '../../source/session/repository.js';
import { LocalSessionRepository } from '../../source/store/local-repository.js';
import { chainSpec } from '../helpers/chain-spec.js';
import { tempDir } from '../helpers/temp-dir.js';

async function created(repository: SessionRepository, cwd: string) {
  const text = chainSpec({ steps: 2, provider: 'scripted' });
  const { spec } = loadSpecText(text, 'spec.yaml');
  return repository.create({
    workflow_name: spec.name, pattern_type: 'chain', spec_path: join(cwd, 'spec.yaml'), spec_hash: 'h', cwd,
    variables: { topic: 't' }, runtime: { provider: 'scripted' }, specText: text, spec, stepsTotal: 2,
  });
}

describe('the local session repository', () => {
  it('creates, opens by prefix, lists, peeks and deletes sessions through promises', async () => {
    const cwd = tempDir();
    const repository = new LocalSessionRepository(join(cwd, 'home'));
    const session = await created(repository, cwd);
    const id = session.record.session_id;
    expect(session.location).toBe(join(cwd, 'home', 'sessions', id));

    const opened = await repository.open(id.slice(0, 6));
    expect(opened.record).toEqual(session.record);
    expect(await opened.specText()).toBe(readFileSync(join(session.location, 'spec.yaml'), 'utf8'));
    expect((await opened.spec()).name).toBe('e2e-chain');
    expect(await opened.events()).toEqual([]);
    expect(await repository.resolveId(id.slice(0, 4))).toBe(id);
    expect((await repository.list()).map((row) => [row.session_id, row.status])).toEqual([[id, 'created']]);
    const peeked = await repository.peek(id);
    expect(peeked.checkpoint).toMatchObject({ status: 'created', steps_done: 0, steps_total: 2 });
    expect(peeked.pattern.shape(initialProgress(0)).map((node) => node.label)).toEqual(['worker', 'worker']);

    await repository.delete(id);
    expect(await repository.list()).toEqual([]);
    await expect(repository.open(id)).rejects.toMatchObject({ code: 'ACODE-RESUME-005' });
  });

  it('leases a session to one holder at a time, and unlocks it', async () => {
    const cwd = tempDir();
    const repository = new LocalSessionRepository(join(cwd, 'home'));
    const id = (await created(repository, cwd)).record.session_id;
    const first = await repository.lease(id, { timeoutMs: 60_000, floorEpoch: 4 });
    if (!first.acquired) throw new Error('the first lease was refused');
    expect(first.lease.epoch).toBe(5);
    expect(first.lease.stillOwned()).toBe(true);
    expect(await repository.lockState(id, 60_000)).toMatchObject({ kind: 'held', owner: { pid: process.pid } });

    const second = await repository.lease(id, { timeoutMs: 60_000, floorEpoch: 0 });
    expect(second).toMatchObject({ acquired: false, holder: { pid: process.pid } });

    expect(await repository.unlock(id)).toMatchObject({ pid: process.pid });
    expect(first.lease.stillOwned()).toBe(false);
    expect(await repository.lockState(id, 60_000)).toEqual({ kind: 'free' });
    const third = await repository.lease(id, { timeoutMs: 60_000, floorEpoch: 0 });
    if (!third.acquired) throw new Error('the lease after unlock was refused');
    expect(third.lease.epoch).toBeGreaterThan(5); // an unlocked holder's epoch is never handed out again
    third.lease.release();
    third.lease.release();
    expect(existsSync(join(cwd, 'home', 'sessions', id, 'lock'))).toBe(false);
  });

  it('tells a watcher when a watched session changes, and when a session is added', async () => {
    const cwd = tempDir();
    const repository = new LocalSessionRepository(join(cwd, 'home'));
    const session = await created(repository, cwd);
    const changed = () => {
      let stop = () => {};
      const seen = new Promise<void>((resolve) => (stop = repository.watch(resolve, { intervalMs: 10, sessions: () => [session.record.session_id] }).stop));
      return seen.finally(() => stop());
    };

    const touched = changed();
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(session.location, 'session.json'), later, later);
    await touched;

    const added = changed();
    await created(repository, cwd);
    await added;
  });

  it('refuses a home that is a file as it is opened', async () => {
    const cwd = tempDir();
    const home = join(cwd, 'spec.yaml');
    (await import('node:fs')).writeFileSync(home, 'not a folder');
    expect(() => new LocalSessionRepository(home)).toThrow(/is a file, but acode keeps its sessions in a folder there/);
  });
});
