import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forkCommand } from '../../source/commands/fork.js';
import type { CommandContext } from '../../source/commands/command-context.js';
import { defaultResumeConfig } from '../../source/config/resume-config.js';
import type { PendingWriteState } from '../../source/engine/write-recovery.js';
import { executeRun, type RunView } from '../../source/session/execute.js';
import { forkSession } from '../../source/session/fork.js';
import { resolveInProgressStrategy, settleStrategy } from '../../source/session/in-progress-strategy.js';
import { claimResume, prepareResume } from '../../source/session/prepare-resume.js';
import type { PreparedRun } from '../../source/session/prepared-run.js';
import { checkStart, readSpecForRun, startRun } from '../../source/session/start.js';
import { LocalSessionRepository } from '../../source/store/local-repository.js';
import { chainSpec } from '../helpers/chain-spec.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A view that shows nothing: the run goes on as in a pipe. */
const quietView = async (): Promise<RunView> => ({ close: async () => undefined });

/** A view that cannot open, as a terminal that cannot be drawn on fails before the first step. */
const brokenView = async (): Promise<RunView> => {
  throw new Error('cannot open the run view');
};

function workspace(faults = '') {
  const cwd = tempDir();
  const home = join(tempDir(), 'home');
  writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps: 3, provider: 'scripted', scripted: `  scripted:\n    response_bytes: 64${faults}` }));
  let repository: LocalSessionRepository | undefined;
  return { cwd, home, env: { ACODE_HOME: home }, get repository() { return (repository ??= new LocalSessionRepository(home)); } };
}

async function started(ws: ReturnType<typeof workspace>): Promise<PreparedRun> {
  const { loaded } = readSpecForRun(join(ws.cwd, 'spec.yaml'), []);
  return startRun(ws.repository, checkStart({ specPath: 'spec.yaml', loaded, overrides: {}, cwd: ws.cwd, env: ws.env }));
}

const lockOf = (ws: { home: string }, id: string) => join(ws.home, 'sessions', id, 'lock');

describe('the session lifecycle', () => {
  it('holds the lock of a started session until the run ends, then lets it go', async () => {
    const ws = workspace();
    const prepared = await started(ws);
    expect(existsSync(lockOf(ws, prepared.sessionId))).toBe(true);
    const { summary } = await executeRun(prepared, { open: quietView });
    expect(summary).toMatchObject({ status: 'completed', steps_executed: 3 });
    expect(existsSync(lockOf(ws, prepared.sessionId))).toBe(false);
  });

  it('lets the lock of a fork go when the fork fails before its first step, and the fork can be resumed', async () => {
    const ws = workspace();
    const source = await started(ws);
    await executeRun(source, { open: quietView });

    const fork = await forkSession(ws.repository, { id: source.sessionId, fromStep: '2', cwd: ws.cwd, env: ws.env });
    expect(fork.intro).toEqual({ kind: 'fork', from: source.sessionId, reused: 1 });
    expect(existsSync(lockOf(ws, fork.sessionId))).toBe(true);
    await expect(executeRun(fork, { open: brokenView })).rejects.toThrow('cannot open the run view');
    expect(existsSync(lockOf(ws, fork.sessionId))).toBe(false);
    expect(await ws.repository.lockState(fork.sessionId, 60_000)).toEqual({ kind: 'free' });

    // Nothing ran: a resume takes the fork up from its start, and reuses nothing it did not record.
    const candidate = await prepareResume(ws.repository, { id: fork.sessionId, cwd: ws.cwd, env: ws.env });
    const resumed = await claimResume(ws.repository, candidate, { strategy: 'rollback', env: ws.env });
    const { summary } = await executeRun(resumed, { open: quietView });
    expect(summary).toMatchObject({ status: 'completed', steps_total: 3 });
    expect(existsSync(lockOf(ws, fork.sessionId))).toBe(false);
  });

  it('lets the lock of a fork go when acode fork cannot even announce it (its terminal is gone)', async () => {
    const ws = workspace();
    const source = await started(ws);
    await executeRun(source, { open: quietView });
    const gone = { write: () => { throw Object.assign(new Error('write EIO'), { code: 'EIO' }); } } as unknown as NodeJS.WritableStream;
    const ctx = { stdout: gone, stderr: gone, interactive: false, color: false, env: ws.env, cwd: ws.cwd } as unknown as CommandContext;
    await expect(forkCommand(ctx, source.sessionId, { json: false })).rejects.toThrow('write EIO');
    const fork = (await ws.repository.list()).find((row) => row.session_id !== source.sessionId)!;
    expect(fork).toBeDefined();
    expect(existsSync(lockOf(ws, fork.session_id))).toBe(false);
  });

  it('refuses a --from-step past the completed steps before creating or locking anything', async () => {
    const ws = workspace();
    const source = await started(ws);
    await executeRun(source, { open: quietView });
    await expect(forkSession(ws.repository, { id: source.sessionId, fromStep: '9', cwd: ws.cwd, env: ws.env })).rejects.toMatchObject({ exitCode: 2 });
    expect((await ws.repository.list()).map((row) => row.session_id)).toEqual([source.sessionId]);
  });

  it('lets the lock of a resume go when the resume fails before its first step', async () => {
    const ws = workspace('\n    faults:\n      - { step: 1, kind: error, times: 1 }');
    const first = await started(ws);
    const { summary } = await executeRun(first, { open: quietView });
    expect(summary.status).not.toBe('completed');
    const candidate = await prepareResume(ws.repository, { cwd: ws.cwd, env: ws.env });
    const resumed = await claimResume(ws.repository, candidate, { strategy: 'rollback', env: ws.env });
    expect(existsSync(lockOf(ws, first.sessionId))).toBe(true);
    await expect(executeRun(resumed, { open: brokenView })).rejects.toThrow('cannot open the run view');
    expect(existsSync(lockOf(ws, first.sessionId))).toBe(false);
  });

  it('releases a prepared run once, however often it is asked', async () => {
    const ws = workspace();
    const prepared = await started(ws);
    prepared.release();
    prepared.release();
    expect(existsSync(lockOf(ws, prepared.sessionId))).toBe(false);
    // The journal was closed by the first release: a run of it now fails instead of writing.
    await expect(executeRun(prepared, { open: quietView })).rejects.toThrow();
  });

  it('writes nothing for --no-save-session: no home, no lock', async () => {
    const ws = workspace();
    const { loaded } = readSpecForRun(join(ws.cwd, 'spec.yaml'), []);
    const prepared = await startRun(null, checkStart({ specPath: 'spec.yaml', loaded, overrides: {}, cwd: ws.cwd, env: ws.env }));
    expect(prepared.saved).toBe(false);
    expect((await executeRun(prepared, { open: quietView })).summary.status).toBe('completed');
    expect(existsSync(ws.home)).toBe(false);
  });
});

describe('the in-progress strategy', () => {
  const torn = { state: 'torn' } as PendingWriteState;
  const applied = { state: 'applied' } as PendingWriteState;

  it('is --strategy, else resume.in_progress_strategy, whose default is rollback', () => {
    expect(resolveInProgressStrategy(undefined, defaultResumeConfig)).toBe('rollback');
    expect(resolveInProgressStrategy(undefined, { in_progress_strategy: 'retry' })).toBe('retry');
    expect(resolveInProgressStrategy('rollback', { in_progress_strategy: 'retry' })).toBe('rollback');
  });

  it('asks about torn writes only when someone can answer, and rolls back otherwise', async () => {
    expect(await settleStrategy('prompt', [torn])).toBe('rollback');
    expect(await settleStrategy('prompt', [torn], async () => 'retry')).toBe('retry');
    expect(await settleStrategy('prompt', [torn], async () => 'rollback')).toBe('rollback');
    let asked = false;
    expect(await settleStrategy('prompt', [applied], async () => ((asked = true), 'retry'))).toBe('rollback');
    expect(asked).toBe(false);
    expect(await settleStrategy('retry', [torn], async () => 'rollback')).toBe('retry');
  });
});
