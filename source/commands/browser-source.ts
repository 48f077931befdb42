import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { configFiles, defaultLockTimeoutSeconds } from '../config/resume-defaults.js';
import type { BrowserRow } from '../state/browser-rows.js';
import type { SessionDetails, SessionSource, StepStatusView } from '../state/browser-store.js';
import { withLiveness } from '../store/resumability.js';
import { SessionLock } from '../store/session-lock.js';
import { openStore, type CommandContext } from './command-context.js';
import { describeOwner } from './session-lease.js';

export interface PollingSource extends SessionSource {
  /** Fresh rows when something changed since the last look (cheap when nothing did), else null. */
  poll(): BrowserRow[] | null;
}

function mtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** resume.lock_timeout_seconds; the YAML config loader is imported only when a config file exists. */
async function lockTimeoutMs(home: string, cwd: string): Promise<number> {
  if (!configFiles(home, cwd).some((file) => existsSync(file))) return defaultLockTimeoutSeconds * 1000;
  const { loadResumeConfig } = await import('../config/resume-config.js');
  return loadResumeConfig(home, cwd).lock_timeout_seconds * 1000;
}

/** The browser's data, read through the session store: index rows, one session's details, its plan. */
export async function createSessionSource(ctx: CommandContext): Promise<PollingSource> {
  const store = openStore(ctx);
  const timeoutMs = await lockTimeoutMs(store.home, ctx.cwd);
  let stamp = '';
  let live: string[] = [];

  const lockOf = (id: string) => store.lockState(id, timeoutMs);
  const snapshot = () => `${mtime(join(store.home, 'index.json'))}:${mtime(store.sessionsDir)}:${live.map((id) => mtime(join(store.sessionsDir, id, 'session.json'))).join(',')}`;

  const list = () => {
    const rows: BrowserRow[] = store.list().map((row) => withLiveness(row, lockOf));
    live = rows.filter((r) => r.status === 'running' || r.status === 'created').map((r) => r.session_id);
    stamp = snapshot();
    return rows;
  };

  return {
    home: store.home,
    list,
    poll: () => (snapshot() === stamp ? null : list()),
    details(id): SessionDetails {
      const handle = store.open(id);
      const record = handle.record;
      const cp = record.checkpoint;
      const lock = store.lockState(id, timeoutMs);
      const agents = handle.spec().pattern.config.steps.map((s) => s.agent);
      const steps = agents.map((agent, index): StepStatusView => {
        let status: StepStatusView['status'] = index < cp.next_step ? 'done' : 'pending';
        if (index === cp.next_step && cp.status === 'failed') status = 'failed';
        if (index === cp.next_step && cp.status === 'running') status = lock.kind === 'held' ? 'running' : 'interrupted';
        return { index, agent, status };
      });
      return {
        id,
        steps,
        lastResponse: cp.last_response_preview,
        stopReason: cp.stop_reason,
        error: cp.error,
        lock: lock.kind === 'free' ? null : `${lock.kind === 'stale' ? 'stale, ' : ''}${describeOwner(lock.owner)}`,
        damaged: null,
      };
    },
    // Planning needs the whole resume machinery: it loads on the first Enter, not at start-up.
    async plan(id) {
      const [{ prepareResume }, { describePlan }, { changeLines, viewChanges }] = await Promise.all([import('./prepare-resume.js'), import('../engine/continuation-plan.js'), import('./changed-files.js')]);
      const prepared = prepareResume(ctx, id);
      const views = viewChanges(prepared.environment.changes, prepared.handle.record.cwd);
      return [...describePlan(prepared.plan), ...(views.length ? [`changed files: ${views.length} (you will be asked)`, ...changeLines(views)] : [])];
    },
    remove(id) {
      const lock = store.lockState(id, timeoutMs);
      if (lock.kind === 'held') throw new Error(`session ${id.slice(0, 8)} is running in ${describeOwner(lock.owner)}; stop it there first`);
      store.delete(id);
    },
    unlock: (id) => void SessionLock.forceRemove(join(store.sessionsDir, id)),
  };
}
