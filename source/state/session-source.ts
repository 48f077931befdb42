import type { SessionStep } from './session-steps.js';
import type { RunningOwner } from './running-elsewhere.js';
import type { SessionStepsView } from './step-view-store.js';
import type { BrowserRow, LocalScope, RowSet, TeamFacts } from './browser-rows.js';

/** What the details pane shows of the selected session (loaded on selection, one session at a time). */
export interface SessionDetails {
  id: string;
  /** The session's pattern type: how the pane groups its steps. */
  pattern: string;
  steps: SessionStep[];
  lastResponse: string;
  stopReason: string | null;
  error: string | null;
  lock: string | null;
  damaged: string | null;
  /** A team-store row: where it last ran, and whether this home has it (its details are the store's row, no local file is read). */
  team?: TeamFacts & { status: string };
}

/**
 * The rows of the first frame: every session, or — drawn from the index head, a few hundred KB
 * instead of the whole index — only the newest rows of the first scope, with the figures of the
 * whole list until the rest is loaded.
 */
export interface FirstRows {
  rows: BrowserRow[];
  whole?: WholeList;
}

/** Figures of the whole list while only its newest rows are loaded: sessions, per status, per scope. */
export interface WholeList {
  sessions: number;
  counts: Record<string, number>;
  shown: Record<LocalScope, number>;
}

/** The browser's window on the disk: implemented by the command layer (the UI never touches it). */
export interface SessionSource {
  readonly home: string;
  /** The rows of the first frame, ready before the store is created. */
  readonly initial: FirstRows;
  /** Every session, reconciled with the disk. */
  list(): Promise<BrowserRow[]>;
  /** Read on each selection change, so it is synchronous and cheap (one session's files). */
  details(id: string): SessionDetails;
  /** The live process holding the session's lock, read now; null when none does. */
  runningIn(id: string): RunningOwner | null;
  /** Every step of a session with what it did (the step view): the whole log is read, so only on Enter. */
  steps(id: string, resumable: boolean): Promise<SessionStepsView>;
  /** The continuation plan as lines, or rejects with the reason a resume would be refused. */
  plan(id: string): Promise<string[]>;
  /** What a fork of `id` from step `step` (as a person names it, engine/step-names.ts stepName) would reuse and run, as lines; rejects with why it cannot fork. */
  forkPlan(id: string, step: string): Promise<string[]>;
  remove(id: string): Promise<void>;
  unlock(id: string): Promise<void>;
  /** Why the team scope is not offered (no team store configured, or its URL cannot be used); null when it is. */
  readonly teamUnavailable: string | null;
  /** The team store's sessions, newest first (its first pages); rejects with why the store cannot be read. Loads `pg` on its first call, never before. */
  team(): Promise<BrowserRow[]>;
}

/** The team scope's rows: read once, when the scope is first shown (and again after a failure, or on Ctrl+R). */
export interface TeamRows {
  state: 'idle' | 'loading' | 'ready' | 'unreachable';
  set: RowSet | null;
  /** Why the store could not be read (state `unreachable`). */
  problem: string | null;
}

