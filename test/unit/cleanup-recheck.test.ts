import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyCleanup, planCleanup } from '../../source/session/cleanup.js';
import { loadSpecText } from '../../source/spec/load-spec.js';
import { LocalSessionRepository } from '../../source/store/local-repository.js';
import { SessionLock } from '../../source/store/session-lock.js';
import { bundleForChild } from '../helpers/bundle-for-child.js';
import { chainSpec } from '../helpers/chain-spec.js';
import { smallTmpfs, tmpfsUnavailable } from '../helpers/small-tmpfs.js';
import { tempDir } from '../helpers/temp-dir.js';

async function createdSession(cwd: string) {
  const repository = new LocalSessionRepository(join(cwd, 'home'));
  const text = chainSpec({ steps: 1, provider: 'scripted' });
  const { spec } = loadSpecText(text, 'spec.yaml');
  const session = await repository.create({ workflow_name: spec.name, pattern_type: 'chain', spec_path: join(cwd, 'spec.yaml'), spec_hash: 'h', cwd, variables: {}, runtime: { provider: 'scripted' }, specText: text, spec, stepsTotal: 1 });
  return { repository, session, id: session.record.session_id };
}

const rule = { olderThanMs: 0, statuses: ['created' as const] };

describe('sessions cleanup, checking again under the lock', () => {
  it('spares a session a live process took up after the plan, judging its lock by the configured timeout', async () => {
    const { repository, session, id } = await createdSession(tempDir());
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

/**
 * In a child process: the store keeps folders of the tmpfs open, which only the process's end
 * lets go of (the tmpfs is unmounted after the test).
 */
const fullDiskCleanup = `
import { closeSync, existsSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { applyCleanup, planCleanup } from './source/session/cleanup.ts';
import { loadSpecText } from './source/spec/load-spec.ts';
import { LocalSessionRepository } from './source/store/local-repository.ts';
import { SessionLock } from './source/store/session-lock.ts';
const disk = process.argv[2];
const repository = new LocalSessionRepository(join(disk, 'home'));
const text = process.argv[3];
const { spec } = loadSpecText(text, 'spec.yaml');
const session = await repository.create({ workflow_name: spec.name, pattern_type: 'chain', spec_path: join(disk, 'spec.yaml'), spec_hash: 'h', cwd: disk, variables: {}, runtime: { provider: 'scripted' }, specText: text, spec, stepsTotal: 1 });
const rule = { olderThanMs: 0, statuses: ['created'] };
const now = Date.now() + 1000;
const plan = await planCleanup(repository, rule, 60_000, now);
// Taken up after the plan by a live process (this one), then the disk fills.
const taken = SessionLock.acquire(session.location, 60_000);
const fd = openSync(join(disk, 'filler'), 'w');
try {
  for (;;) writeSync(fd, Buffer.alloc(4096));
} catch {
  // ENOSPC: full
} finally {
  closeSync(fd);
}
const result = await applyCleanup(repository, plan, rule, 60_000, now);
console.log(JSON.stringify({ id: session.record.session_id, planned: plan.doomed.map((s) => s.session_id), acquired: taken.acquired, result, kept: existsSync(session.location) }));
`;

describe.skipIf(tmpfsUnavailable !== null)('sessions cleanup on a full disk (a real tmpfs)', () => {
  it('spares a session whose lock a live process holds, though no lock file can be written to check it', () => {
    const disk = smallTmpfs('1m');
    const child = bundleForChild(fullDiskCleanup);
    const run = spawnSync(process.execPath, [child, disk, chainSpec({ steps: 1, provider: 'scripted' })], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const { id, planned, acquired, result, kept } = JSON.parse(run.stdout) as { id: string; planned: string[]; acquired: boolean; result: unknown; kept: boolean };
    expect(planned).toEqual([id]);
    expect(acquired).toBe(true);
    expect(result).toEqual({ deleted: [], spared: [{ id, why: 'a process took it up meanwhile' }] });
    expect(kept).toBe(true);
  });
});
