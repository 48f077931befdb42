import { existsSync } from 'node:fs';
import { isNumbered } from '../engine/patterns/pattern-for.js';
import { join } from 'node:path';
import { configFiles, defaultLockTimeoutSeconds } from '../config/resume-defaults.js';
import type { BrowserRow } from '../state/browser-rows.js';
import type { FirstRows, SessionDetails, SessionSource } from '../state/browser-store.js';
import { describeOwner } from '../session/lock-owner.js';
import type { SessionRepository } from '../session/repository.js';
import type { Checkpoint } from '../engine/session-progress.js';
import { aliveUntil, checkpointSteps, replaySteps, sessionSteps, type SessionStep } from '../state/session-steps.js';
import { defaultHome } from '../store/acode-home.js';
import { changeStamp, liveStamp, storeStamp } from '../store/change-stamp.js';
import { withLiveness } from '../store/resumability.js';
import { readIndexHead, writeIndexHead } from '../store/index-head.js';
import { readIndexView } from '../store/session-index.js';
import { SessionLock, type LockState } from '../store/session-lock.js';
import { peekSession, type SessionPeek } from '../store/session-peek.js';
import type { SessionSummary } from '../store/session-record.js';
import { mayRunAhead } from '../store/summary-rows.js';
import type { CommandContext } from './command-context.js';
import { firstRowsFromHead } from './head-rows.js';
import { callsDollars, pricerFor } from '../state/step-cost.js';
import { stepName } from '../engine/step-names.js';
import type { SessionStepsView } from '../state/step-view-store.js';
import { remoteTarget, type RemoteTarget } from '../store/remote/remote-url.js';
import type { RemoteSessionRow } from '../store/remote/remote-sessions.js';

/** Interrupted sessions watched for a resume started elsewhere, at most (see track). */
const watchedInterrupted = 64;

export interface PollingSource extends SessionSource {
  /** Fresh rows when something changed since the last look (cheap when nothing did), else null. */
  poll(): Promise<BrowserRow[] | null>;
  /** Calls `onChange` when the sessions may have changed in another process (then `poll()` reads them); returns how to stop. */
  watch(onChange: () => void, intervalMs: number): Promise<() => void>;
}

/** A listed row without the liveness the listing added. */
const summaryOf = (row: SessionSummary): SessionSummary => {
  const { interrupted: _interrupted, resumable: _resumable, ...summary } = row as BrowserRow;
  return summary;
};

/**
 * A session's steps and latest state for the details pane. A chain's current checkpoint says all
 * its log does, so only the log's last line is read; otherwise the log — the truth, of which the
 * checkpoint is a lazy snapshot — is replayed, unless it trails the checkpoint (not written by a run).
 */
function peekedSteps(peek: SessionPeek, live: boolean): { steps: SessionStep[]; now: Pick<Checkpoint, 'last_response_preview' | 'stop_reason' | 'error'> } {
  const { checkpoint: cp, pattern } = peek;
  if (isNumbered(pattern.type) && peek.lastEventId() === cp.last_event_id) return { steps: checkpointSteps(pattern, cp, live), now: cp };
  const replayed = replaySteps(peek.events(), cp.steps_total);
  if (replayed.progress.last_event_id < cp.last_event_id) return { steps: checkpointSteps(pattern, cp, live), now: cp };
  return { steps: sessionSteps(pattern, replayed, live), now: replayed.progress };
}

/** Every step of a session with what it did, for the step view: the whole log is replayed. */
async function viewSteps(peek: SessionPeek, id: string, lock: LockState, resumable: boolean): Promise<SessionStepsView> {
  const { checkpoint: cp, pattern, spec } = peek;
  const live = lock.kind === 'held';
  // A killed step's time, as `sessions show` counts it: up to its process's last heartbeat.
  const replayed = replaySteps(peek.events(), cp.steps_total, aliveUntil(lock));
  // A log that trails its checkpoint (not written by a run) tells no step's results.
  const fromLog = replayed.progress.last_event_id >= cp.last_event_id;
  const steps = fromLog ? sessionSteps(pattern, replayed, live) : checkpointSteps(pattern, cp, live);
  // The snapshot was checked only for its pattern: a spec without runtime or agents is priced as unknown.
  const price = spec.runtime && spec.agents ? await pricerFor(spec) : undefined;
  return {
    id,
    workflow: typeof spec.name === 'string' ? spec.name : '',
    pattern: pattern.type,
    resumable,
    status: (fromLog ? replayed.progress : cp).status,
    stopReason: (fromLog ? replayed.progress : cp).stop_reason,
    steps: steps.map((step) => {
      const result = fromLog ? replayed.results.get(step.id) : undefined;
      return { step, ref: stepName(pattern.type, step.id), result, dollars: result?.reported_usd ?? (result && price ? callsDollars(price, step.agent, result.calls) : undefined) };
    }),
  };
}

/** Rows the team scope lists, at most: its newest, a page of the store's listing at a time. */
const teamRowsShown = 1000;

/**
 * The team scope's reader: why there is none (no store configured, or its URL cannot be used), or
 * how to read the store's newest sessions — the paged listing `acode sessions list --remote` uses.
 * `pg` and the store's code load on the first read, when the team scope is first shown.
 */
function teamReader(home: string, ctx: CommandContext, timeoutMs: number): { unavailable: () => string | null; read: () => Promise<BrowserRow[]> } {
  let found: { target?: RemoteTarget; unavailable: string | null } | undefined;
  // Looked at on the first s, not before the first frame.
  const look = () => {
    if (found) return found;
    try {
      const target = remoteTarget(home, ctx.cwd, ctx.env);
      found = target ? { target, unavailable: null } : { unavailable: 'set ACODE_REMOTE_URL to a team store (postgres://…) to list its sessions' };
    } catch (error) {
      found = { unavailable: (error as Error).message };
    }
    return found;
  };
  const read = async (): Promise<BrowserRow[]> => {
    const { target, unavailable } = look();
    if (!target) throw new Error(unavailable ?? 'no team store');
    const [{ connectRemote }, { remoteSessionPages }, { requireCurrentSchema }] = await Promise.all([import('../store/remote/remote-client.js'), import('../store/remote/remote-sessions.js'), import('../store/remote/schema-migrate.js')]);
    const db = await connectRemote(target);
    try {
      await requireCurrentSchema(db, target.shown);
      const rows: BrowserRow[] = [];
      for await (const page of remoteSessionPages(db, { limit: teamRowsShown, lockTimeoutMs: timeoutMs })) rows.push(...page.map(teamRow));
      return rows;
    } finally {
      await db.close();
    }
  };
  return { unavailable: () => look().unavailable, read };
}

/** A team-store row as the browser lists it: no folder or response (the store's row has none); where it last ran; interrupted as the store's lease says. */
function teamRow(row: RemoteSessionRow): BrowserRow {
  const { host, events, variables, interrupted, ...summary } = row;
  return { ...summary, cwd: '', variables: variables as BrowserRow['variables'], stop_reason: null, last_response: '', damaged: null, interrupted, resumable: false, team: { host, events, here: false } };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** resume.lock_timeout_seconds; the YAML config loader is imported only when a config file exists. */
async function lockTimeoutMs(home: string, cwd: string): Promise<number> {
  if (!configFiles(home, cwd).some((file) => existsSync(file))) return defaultLockTimeoutSeconds * 1000;
  const { loadResumeConfig } = await import('../config/resume-config.js');
  return loadResumeConfig(home, cwd).lock_timeout_seconds * 1000;
}

/**
 * The browser's data. The first frame is drawn from the index as it stands (no schema validator,
 * no scan of the sessions folder); the session repository — which validates, reconciles the index
 * with the folder, watches and deletes — is loaded right after, on the first `list()` or `poll()`.
 * The first frame, the lock column and the details pane read the local files synchronously (no
 * port could answer within a keystroke); everything else goes through the repository.
 */
export async function createSessionSource(ctx: CommandContext): Promise<PollingSource> {
  const home = defaultHome(ctx.env);
  const sessionsDir = join(home, 'sessions');
  const timeoutMs = await lockTimeoutMs(home, ctx.cwd);
  const lockOf = (id: string) => SessionLock.inspect(join(sessionsDir, id), timeoutMs);
  const withLocks = (rows: SessionSummary[]): BrowserRow[] => rows.map((row) => withLiveness(row, lockOf));

  let repository: Promise<SessionRepository> | undefined;
  const repo = () => (repository ??= import('./command-context.js').then(({ openRepository }) => openRepository(ctx, { quiet: true })));

  let stamp = '';
  let live: string[] = [];
  /** Whether each live session's lock is held (`held`): a run killed (kill -9) changes no file, but its lock goes stale. */
  const heldMarks = (held: (id: string) => boolean) => live.map((id) => (held(id) ? 'h' : '-')).join('');
  const lockHeld = (id: string) => lockOf(id).kind === 'held';
  const snapshot = () => `${changeStamp(home, live)}:${heldMarks(lockHeld)}`;
  /**
   * Rows read after the store was stamped (`before`, storeStamp): taken before the rows are read,
   * so a change made while they were read (a run starting as the browser opens) still differs from
   * it and is looked at next — stamped after, it was taken as seen and the new session showed only
   * when it ended. The live sessions' part is stamped for those the rows say may be running.
   */
  const track = (before: string, rows: BrowserRow[]) => {
    // Sessions a live process drives; interrupted ones too while there are few. Each costs two stats
    // and a lock read a look: a home of 100,000 sessions, 14,000 of them interrupted, kept an idle
    // browser at 12% of a core. A resume of an interrupted session past that many shows when its
    // status changes (the index hears of it); the browser asks the lock again before it acts.
    const mayRun = rows.filter((r) => mayRunAhead(r.status));
    const interrupted = mayRun.filter((r) => r.interrupted);
    live = (interrupted.length <= watchedInterrupted ? mayRun : mayRun.filter((r) => !r.interrupted)).map((r) => r.session_id);
    // The locks as the rows were judged, not read again: a lock gone stale in between differs at the next look.
    // (A session not ended is resumable exactly when no live process holds its lock; a damaged one is not judged so.)
    const judged = new Map(mayRun.map((r) => [r.session_id, r.damaged ? lockHeld(r.session_id) : !r.resumable]));
    stamp = `${before}:${liveStamp(home, live)}:${heldMarks((id) => judged.get(id)!)}`;
    return rows;
  };
  const list = async () => {
    // Read again while the store changed during the read (a run that started meanwhile, or this
    // read's own repair of the index): rows and stamp then agree. A store that keeps changing is
    // stamped as before the read, so the next look reads it again.
    for (let read = 1; ; read++) {
      const before = storeStamp(home);
      const rows = withLocks(await (await repo()).list());
      if (storeStamp(home) === before || read === 3) return track(before, rows);
    }
  };

  // The first frame comes from the index head when it matches the index, else from the index as
  // it stands; a missing or damaged index is rebuilt from the session files before the frame.
  const head = readIndexHead(home);
  const fromHead = head && firstRowsFromHead(head, ctx.cwd, lockOf);
  // Stamped before the index is read, and only when it is: a frame from the head reads no index yet.
  const standingStamp = fromHead ? '' : storeStamp(home);
  const standing = fromHead ? null : readIndexView(home);
  const initial: FirstRows = fromHead || { rows: standing ? withLocks(standing.rows) : await list() };
  /**
   * The first look after the first frame: every row (after a frame from the head), reconciled
   * with the folder only when the index is not current.
   */
  let firstLook: (() => Promise<BrowserRow[] | null>) | null = null;
  if (fromHead || standing) {
    firstLook = async () => {
      const before = standing ? standingStamp : storeStamp(home);
      const view = standing ?? readIndexView(home);
      await nextTurn(); // keys typed meanwhile are answered between the steps of this look
      if (!view?.current() || storeStamp(home) !== before) return list();
      if (!standing) return track(before, withLocks(view.rows));
      // The frame came from the whole index: its head was missing or stale. Write it for next time.
      writeIndexHead(home, view.rows.map(summaryOf), view.version);
      track(before, initial.rows);
      return null;
    };
  }

  const team = teamReader(home, ctx, timeoutMs);
  return {
    home,
    initial,
    list,
    get teamUnavailable() {
      return team.unavailable();
    },
    team: team.read,
    async poll() {
      const look = firstLook;
      firstLook = null;
      if (look) return look();
      return snapshot() === stamp ? null : list();
    },
    async watch(onChange, intervalMs) {
      const watching = (await repo()).watch(onChange, { intervalMs, sessions: () => live });
      // A change between the last look and the start of the watch is not missed.
      if (snapshot() !== stamp) onChange();
      return () => watching.stop();
    },
    details(id): SessionDetails {
      const peek = peekSession(join(sessionsDir, id));
      const lock = lockOf(id);
      const { steps, now } = peekedSteps(peek, lock.kind === 'held');
      return {
        id,
        pattern: peek.pattern.type,
        steps,
        lastResponse: now.last_response_preview,
        stopReason: now.stop_reason,
        error: now.error,
        lock: lock.kind === 'free' ? null : `${lock.kind === 'stale' ? 'stale, ' : ''}${describeOwner(lock.owner)}`,
        damaged: null,
      };
    },
    runningIn(id) {
      const lock = lockOf(id);
      return lock.kind === 'held' ? { pid: lock.owner.pid, host: lock.owner.host, heartbeatAt: lock.owner.heartbeat_at } : null;
    },
    async steps(id, resumable) {
      return viewSteps(peekSession(join(sessionsDir, id)), id, lockOf(id), resumable);
    },
    // Planning needs the whole resume machinery: it loads on the first Enter, not at start-up.
    async plan(id) {
      const [{ prepareResume, changesToAsk }, { describePlan }, { changeLines, viewChanges }] = await Promise.all([import('../session/prepare-resume.js'), import('../engine/continuation-plan.js'), import('./changed-files.js')]);
      const candidate = await prepareResume(await repo(), { id, cwd: ctx.cwd, env: ctx.env });
      const views = viewChanges(changesToAsk(candidate), candidate.session.record.cwd);
      return [...describePlan(candidate.plan), ...(views.length ? [`changed files: ${views.length} (you will be asked)`, ...changeLines(views)] : [])];
    },
    // A fork's preview, as `acode fork <id> --from-step S --dry-run` prints it; the fork code loads on the first f.
    async forkPlan(id, step) {
      const [{ previewForkSession }, { terminalText }] = await Promise.all([import('../session/fork.js'), import('../printable-text.js')]);
      const { steps } = await previewForkSession(await repo(), { id, fromStep: step, cwd: ctx.cwd, env: ctx.env, vars: {} });
      const reused = steps.filter((s) => s.reused).length;
      // Each step by its name (`step industry/1`), as the dry run prints it and f took it — not its title.
      const label = (s: (typeof steps)[number]) => terminalText(`step ${s.step}`);
      const width = Math.max(0, ...steps.map((s) => label(s).length));
      const agentWidth = Math.max(0, ...steps.map((s) => terminalText(s.agent).length));
      return [
        `a new session, reusing ${reused} of ${steps.length} steps; this one stays as it is`,
        ...steps.map((s) => `${s.reused ? '↷' : '▶'} ${label(s).padEnd(width)}  ${terminalText(s.agent).padEnd(agentWidth)}  ${s.reused ? 'reused' : 'runs'}: ${terminalText(s.why)}`),
      ];
    },
    async remove(id) {
      // Deleted under the session's lock: a resume that starts while the question was asked keeps it.
      if ((await (await repo()).deleteIfIdle(id, timeoutMs)) !== 'running') return;
      const lock = lockOf(id);
      throw new Error(`session ${id.slice(0, 8)} is running${lock.kind === 'held' ? ` in ${describeOwner(lock.owner)}` : ''}; stop it there first`);
    },
    async unlock(id) {
      await (await repo()).unlock(id);
    },
  };
}
