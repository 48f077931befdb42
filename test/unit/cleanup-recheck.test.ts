import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyCleanup, planCleanup } from '../../source/session/cleanup.js';
import { loadSpecText } from '../../source/spec/load-spec.js';
import { LocalSessionRepository } from '../../source/store/local-repository.js';
import { SessionLock } from '../../source/store/session-lock.js';
import { chainSpec } from '../helpers/chain-spec.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('sessions cleanup, checking again under the lock', () => {
  it('spares a session a live process took up after the plan, judging its lock by the configured timeout', async () => {
    const cwd = tempDir();
    const repository = new LocalSessionRepository(join(cwd, 'home'));
    const text = chainSpec({ steps: 1, provider: 'scripted' });
    const { spec } = loadSpecText(text, 'spec.yaml');
    const session = await repository.create({ workflow_name: spec.name, pattern_type: 'chain', spec_path: join(cwd, 'spec.yaml'), spec_hash: 'h', cwd, variables: {}, runtime: { provider: 'scripted' }, specText: text, spec, stepsTotal: 1 });
    const id = session.record.session_id;
    const rule = { olderThanMs: 0, statuses: ['created' as const] };
    const now = Date.now() + 1000;
    // A lock timeout of 5 minutes, configured; the default is 60 s.
    const timeoutMs = 300_000;
    const plan = await planCleanup(repository, rule, timeoutMs, now);
    expect(plan.doomed.map((s) => s.session_id)).toEqual([id]);

    // Taken up meanwhile by a live process (this one) whose heartbeat is 90 s old: silent past the
    // default timeout, well within the configured one — held.
    const taken = SessionLock.acquire(session.location, timeoutMs);
    expect(taken.acquired).toBe(true);
    const lockFile = join(session.location, 'lock');
    const owner = JSON.parse(readFileSync(lockFile, 'utf8')) as { heartbeat_at: string };
    writeFileSync(lockFile, JSON.stringify({ ...owner, heartbeat_at: new Date(Date.now() - 90_000).toISOString() }));

    const result = await applyCleanup(repository, plan, rule, timeoutMs, now);
    expect(result).toEqual({ deleted: [], spared: [{ id, why: 'a process took it up meanwhile' }] });
    expect(existsSync(session.location)).toBe(true);
    if (taken.acquired) taken.lock.release();
  });
});
