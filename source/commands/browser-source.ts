import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { configFiles, defaultLockTimeoutSeconds } from '../config/resume-defaults.js';
import type { BrowserRow } from '../state/browser-rows.js';
import type { FirstRows, SessionDetails, SessionSource, StepStatusView } from '../state/browser-store.js';
import { defaultHome } from '../store/acode-home.js';
import { mtimeOf as mtime } from '../store/file-mtime.js';
import { withLiveness } from '../store/resumability.js';
import { readIndexHead, writeIndexHead } from '../store/index-head.js';
import { indexSignature } from '../store/index-log.js';
import { readIndexView } from '../store/session-index.js';
import { SessionLock } from '../store/session-lock.js';
import { peekSession } from '../store/session-peek.js';
import type { SessionSummary } from '../store/session-record.js';
import type { SessionStore } from '../store/session-store.js';
import { isLiveStatus } from '../store/summary-rows.js';
import type { CommandContext } from './command-context.js';
import { firstRowsFromHead } from './head-rows.js';
import { describeOwner } from './session-lease.js';

export interface PollingSource extends SessionSource {
  /** Fresh rows when something changed since the last look (cheap when nothing did), else null. */
  poll(): Promise<BrowserRow[] | null>;
}

/** A listed row without the liveness the listing added. */
const summaryOf = (row: SessionSummary): SessionSummary => {
  const { interrupted: _interrupted, resumable: _resumable, ...summary } = row as BrowserRow;
  return summary;
};

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** resume.lock_timeout_seconds; the YAML config loader is imported only when a config file exists. */
async function lockTimeoutMs(home: string, cwd: string): Promise<number> {
  if (!configFiles(home, cwd).some((file) => existsSync(file))) return defaultLockTimeoutSeconds * 1000;
  const { loadResumeConfig } = await import('../config/resume-config.js');
  return loadResumeConfig(home, cwd).lock_timeout_seconds * 1000;
}

/**
 * The browser's data. The first frame is drawn from the index as it stands (no schema validator,
 * no scan of the sessions folder); the session store — which validates, reconciles the index with
 * the folder and deletes — is loaded right after, on the first `list()` or `poll()`.
 */
export async function createSessionSource(ctx: CommandContext): Promise<PollingSource> {
  const home = defaultHome(ctx.env);
  const sessionsDir = join(home, 'sessions');
  const timeoutMs = await lockTimeoutMs(home, ctx.cwd);
  const lockOf = (id: string) => SessionLock.inspect(join(sessionsDir, id), timeoutMs);
  const withLocks = (rows: SessionSummary[]): BrowserRow[] => rows.map((row) => withLiveness(row, lockOf));

  let store: Promise<SessionStore> | undefined;
  const openStore = () => (store ??= import('./command-context.js').then(({ openStore }) => openStore(ctx)));

  let stamp = '';
  let live: string[] = [];
  const snapshot = () => `${indexSignature(home)}:${mtime(sessionsDir)}:${live.map((id) => mtime(join(sessionsDir, id, 'session.json'))).join(',')}`;
  const track = (rows: BrowserRow[]) => {
    live = rows.filter((r) => isLiveStatus(r.status)).map((r) => r.session_id);
    stamp = snapshot();
    return rows;
  };
  const list = async () => track(withLocks((await openStore()).list()));

  // The first frame comes from the index head when it matches the index, else from the index as
  // it stands; a missing or damaged index is rebuilt from the session files before the frame.
  const head = readIndexHead(home);
  const fromHead = head && firstRowsFromHead(head, ctx.cwd, lockOf);
  const standing = fromHead ? null : readIndexView(home);
  const initial: FirstRows = fromHead || { rows: standing ? withLocks(standing.rows) : await list() };
  /**
   * The first look after the first frame: every row (after a frame from the head), reconciled
   * with the folder only when the index is not current.
   */
  let firstLook: (() => Promise<BrowserRow[] | null>) | null = null;
  if (fromHead || standing) {
    firstLook = async () => {
      const view = standing ?? readIndexView(home);
      await nextTurn(); // keys typed meanwhile are answered between the steps of this look
      if (!view?.current()) return list();
      if (!standing) return track(withLocks(view.rows));
      // The frame came from the whole index: its head was missing or stale. Write it for next time.
      writeIndexHead(home, view.rows.map(summaryOf), view.version);
      track(initial.rows);
      return null;
    };
  }

  return {
    home,
    initial,
    list,
    async poll() {
      const look = firstLook;
      firstLook = null;
      if (look) return look();
      return snapshot() === stamp ? null : list();
    },
    details(id): SessionDetails {
      const { checkpoint: cp, agents } = peekSession(join(sessionsDir, id));
      const lock = lockOf(id);
      const steps = agents.map((agent, index): StepStatusView => {
        let status: StepStatusView['status'] = index < cp.next_step ? 'done' : 'pending';
        if (index === cp.next_step && cp.status === 'failed') status = 'failed';
        if (index === cp.next_step && cp.status === 'running') status = lock.kind === 'held' ? 'running' : 'interrupted';
        if (index === cp.next_step && cp.status === 'awaiting_approval') status = 'awaiting';
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
    async remove(id) {
      const lock = lockOf(id);
      if (lock.kind === 'held') throw new Error(`session ${id.slice(0, 8)} is running in ${describeOwner(lock.owner)}; stop it there first`);
      (await openStore()).delete(id);
    },
    unlock: (id) => void SessionLock.forceRemove(join(sessionsDir, id)),
  };
}
