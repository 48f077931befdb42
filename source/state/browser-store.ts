import { createStore, type StoreApi } from 'zustand/vanilla';
import { runningElsewhereMessage } from './running-elsewhere.js';
import { whyNotResumable } from './not-resumable.js';
import { createStepViewStore, type StepViewStore } from './step-view-store.js';
import { browserFilters, prepareRows, ranIn, visibleRows, type BrowserFilter, type BrowserRow, type BrowserScope, type RowSet, type TeamFacts } from './browser-rows.js';
import type { SessionDetails, SessionSource, TeamRows, WholeList } from './session-source.js';

// The port the command layer implements, and what it hands the store, live in session-source.ts.
export type { FirstRows, SessionDetails, SessionSource, TeamRows, WholeList } from './session-source.js';


/** Rows of the current view not loaded yet: known only for an unfiltered view of a partly loaded list. */
export function unloadedRows(state: Pick<BrowserState, 'whole' | 'filter' | 'query' | 'scope' | 'visible'>): number {
  if (!state.whole || state.filter !== 'all' || state.query.trim() || state.scope === 'team') return 0;
  return Math.max(0, state.whole.shown[state.scope] - state.visible.length);
}

export type Overlay =
  | { kind: 'help' }
  | { kind: 'confirm'; action: 'delete' | 'unlock'; id: string }
  /** What Enter would start: a resume (`resume`), a fork from a step (`fork`). */
  | { kind: 'plan'; action: 'resume'; id: string; lines: string[] }
  | { kind: 'plan'; action: 'fork'; id: string; step: string; lines: string[] }
  /** A team-store session of another machine: resumed here, it is pulled first. */
  | { kind: 'plan'; action: 'pull'; id: string; host: string; lines: string[] }
  | null;

/** What the person chose to run when the browser closed: the command layer runs it, then opens the browser again. */
export type BrowserLaunch = { action: 'resume'; id: string } | { action: 'fork'; id: string; step: string };

export interface BrowserState {
  home: string;
  cwd: string;
  set: RowSet;
  visible: readonly BrowserRow[];
  /** Set from the first frame until every row is loaded (right after it). */
  whole: WholeList | null;
  selectedId: string | null;
  selected: number;
  /** First visible row of the window. */
  top: number;
  pageSize: number;
  scope: BrowserScope;
  filter: BrowserFilter;
  query: string;
  searching: boolean;
  overlay: Overlay;
  details: SessionDetails | null;
  message: string | null;
  /** The home's push to the team store while it is degraded (`sync: DEGRADED — …`); null when all is there, or without a store. */
  sync: string | null;
  /** The team scope's rows, loaded when it is first shown. */
  team: TeamRows;
  /** The selected session's steps, opened by Enter (its own store: the view over the list). */
  stepView: StepViewStore;
  /** → (and Enter on a session that cannot be resumed): opens the selected session's steps. */
  openSteps(): void;
  /** Why `id` cannot be resumed because another live process runs it; null when none does. */
  runningElsewhere(id: string): string | null;
  /** Set when the person chose to resume or fork: the command layer takes over. */
  launch: BrowserLaunch | null;
  /** Enter on the list: a resumable session's plan, any other's steps. */
  enter(): void;
  /** r on the list: the selected session's plan, or why it cannot be resumed. */
  resumeSelected(): void;
  /** f on a step: what a fork of `id` from `step` would do, Enter to start it. */
  previewFork(id: string, step: string): void;
  quit: boolean;
  move(delta: number): void;
  page(direction: 1 | -1): void;
  jump(edge: 'first' | 'last'): void;
  /** The next filter (1) or the previous one (-1), round. */
  cycleFilter(direction: 1 | -1): void;
  /** s: this directory → all local → the team store's (skipped, said once, without one). */
  cycleScope(): void;
  startSearch(): void;
  typeSearch(text: string): void;
  endSearch(keep: boolean): void;
  /** Reads every session again (the rows change when the read is done). */
  refresh(): void;
  /** New rows from a background poll (another terminal ran a session). */
  replaceRows(rows: BrowserRow[]): void;
  ask(action: 'delete' | 'unlock'): void;
  /** Carries out the confirmed delete or unlock (the rows change when it is done). */
  confirm(): void;
  closeOverlay(): void;
  toggleHelp(): void;
  previewResume(): void;
  setPageSize(rows: number): void;
  /** Clears the message: the next key after one was shown. */
  dismissMessage(): void;
  exit(): void;
}

export type BrowserStore = StoreApi<BrowserState>;

/**
 * How the browser opens again after a resume it started: on that session, with the filter, scope
 * and query it had (each let go, in that order, if the session no longer passes it), and a message.
 */
export interface BrowserStart {
  id: string;
  filter: BrowserFilter;
  scope: BrowserScope;
  query: string;
  message: string | null;
}

const clamp = (value: number, min: number, max: number) => Math.max(min, Math.min(max, value));

const endedStatuses = new Set(['completed', 'failed', 'cancelled']);

/** A team-store row this home does not have: read-only here until it is resumed here. */
const elsewhereRow = (row: BrowserRow | undefined): row is BrowserRow & { team: TeamFacts } => Boolean(row?.team && !row.team.here);

/** Why a key that changes a session does nothing to a team-store row of another machine. */
export function readOnlyMessage(row: BrowserRow & { team: TeamFacts }): string {
  return `session ${row.session_id.slice(0, 8)} is the team store's (it last ran on host ${row.team.host}): read-only here — Enter resumes it here, which pulls it into this home; then d, u and f act on it`;
}

/** The team scope's rows: each this home also has is its local row (it acts as any local one), with where it last ran; another machine's is interrupted as the store's lease says. */
function teamRowsOver(local: readonly BrowserRow[], team: readonly BrowserRow[]): BrowserRow[] {
  const mine = new Map(local.map((row) => [row.session_id, row]));
  return team.map((row) => {
    const here = mine.get(row.session_id);
    const facts = row.team ?? { host: '', events: 0, here: false };
    if (here) return { ...here, team: { ...facts, here: true } };
    return { ...row, resumable: !endedStatuses.has(row.status), team: { ...facts, here: false } };
  });
}

/** The view a reopened browser starts with: the one it had, loosened until the session is in it. */
function reopened(set: RowSet, cwd: string, start: BrowserStart): Pick<BrowserState, 'filter' | 'scope' | 'query' | 'message'> {
  const tries = [
    { filter: start.filter, scope: start.scope, query: start.query },
    { filter: 'all' as const, scope: start.scope, query: start.query },
    { filter: 'all' as const, scope: start.scope, query: '' },
    { filter: 'all' as const, scope: 'all' as const, query: '' },
  ];
  const view = tries.find((t) => visibleRows(set, { ...t, cwd }).some((row) => row.session_id === start.id)) ?? tries[0]!;
  return { ...view, message: start.message };
}

/** One store per browser: selection, filter, scope, query and rows live here; components only render and dispatch. */
export function createBrowserStore(source: SessionSource, cwd: string, start?: BrowserStart): BrowserStore {
  return createStore<BrowserState>()((set, get) => {
    /** Recomputes the visible rows and keeps the selection on the same session when it is still there. */
    const view = (patch: Partial<BrowserState>, keepId = true) => {
      const next = { ...get(), ...patch };
      const visible = visibleRows(next.scope === 'team' ? (next.team.set ?? prepareRows([])) : next.set, next);
      const index = keepId && next.selectedId ? visible.findIndex((row) => row.session_id === next.selectedId) : -1;
      const selected = index >= 0 ? index : clamp(next.selected, 0, Math.max(0, visible.length - 1));
      set({ ...patch, visible, ...select(visible, selected, next.top, next.pageSize) });
    };
    /** Selection, window and details for row `index`. */
    const select = (visible: readonly BrowserRow[], index: number, top: number, pageSize: number) => {
      const row = visible[index];
      const window = clamp(top, Math.max(0, index - pageSize + 1), index);
      let details: SessionDetails | null = null;
      if (row && row.session_id === get().selectedId && get().details) details = get().details;
      else if (row) details = loadDetails(row.session_id, row);
      return { selected: index, selectedId: row?.session_id ?? null, top: Math.max(0, window), details };
    };
    const loadDetails = (id: string, row?: BrowserRow): SessionDetails | null => {
      // A row of another machine has no local files: the store's row is all there is to show.
      if (elsewhereRow(row)) return { id, pattern: row.pattern_type, steps: [], lastResponse: '', stopReason: row.stop_reason, error: null, lock: null, damaged: null, team: { ...row.team, status: row.status } };
      try {
        const details = source.details(id);
        return row?.team ? { ...details, team: { ...row.team, status: row.status } } : details;
      } catch (error) {
        return { id, pattern: '', steps: [], lastResponse: '', stopReason: null, error: null, lock: null, damaged: (error as Error).message };
      }
    };
    /** Rows read again (after a change made here: the message says what happened). */
    const reload = async (message: string | null) => {
      try {
        view({ set: prepareRows(await source.list()), whole: null, message });
      } catch (error) {
        set({ message: `cannot read the sessions: ${(error as Error).message}` });
      }
    };
    /** Runs a disk change, then shows the rows after it, or why it failed. */
    const change = async (action: () => Promise<void> | void, done: string) => {
      try {
        await action();
      } catch (error) {
        set({ message: (error as Error).message });
        return;
      }
      await reload(done);
      reloadDetails();
    };
    /** The selected session may have changed on disk: read its details again. */
    const reloadDetails = () => {
      const id = get().selectedId;
      set({ details: id ? loadDetails(id, get().visible[get().selected]) : null });
    };
    /** Reads the team store's sessions (the team scope shown): the scope says it is reading, then lists them, or says why it cannot. */
    const loadTeam = () => {
      set({ team: { ...get().team, state: 'loading', problem: null } });
      source.team().then(
        (rows) => {
          set({ team: { state: 'ready', set: prepareRows(teamRowsOver(get().set.rows, rows)), problem: null } });
          if (get().scope === 'team') view({});
        },
        (error: unknown) => {
          set({ team: { state: 'unreachable', set: null, problem: (error as Error).message } });
          if (get().scope === 'team') view({});
        },
      );
    };
    /** Enter (or r) on a team-store row of another machine: resume it here, which pulls it — or why not. */
    const previewPull = (row: BrowserRow & { team: TeamFacts }) => {
      const id = row.session_id;
      if (endedStatuses.has(row.status)) return set({ message: `session ${id.slice(0, 8)} ${row.status === 'cancelled' ? 'was cancelled' : row.status} on host ${row.team.host}: nothing to resume; it is read-only here (acode fork works on it once resumed or pulled here)` });
      set({
        overlay: {
          kind: 'plan',
          action: 'pull',
          id,
          host: row.team.host,
          lines: [`it last ran on host ${row.team.host} (${row.team.events} events in the team store); this home does not have it`, `Enter resumes it here as 'acode resume ${id.slice(0, 8)}' does: it is pulled from the team store and continues in its folder if this machine has it, else in ${get().cwd}`],
        },
      });
    };
    /** The team store's line is said once: the first time s skips the team scope. */
    let teamSkipSaid = false;

    /** The last move was to the end of the list (G): it stays there when more rows load. */
    let endWanted = false;
    /** A query typed on the first rows: its best match in the whole list is selected when it loads. */
    let searchedEarly = false;
    const initial = prepareRows(source.initial.rows);
    const scope: BrowserScope = initial.rows.some((row) => ranIn(row.cwd, cwd)) ? 'here' : 'all';
    const state: Omit<BrowserState, 'visible' | 'whole' | 'selected' | 'selectedId' | 'top' | 'details'> = {
      home: source.home,
      cwd,
      set: initial,
      pageSize: 20,
      scope,
      team: { state: 'idle', set: null, problem: null },
      filter: 'all',
      query: '',
      searching: false,
      overlay: null,
      message: null,
      sync: null,
      launch: null,
      stepView: createStepViewStore((id, resumable) => source.steps(id, resumable)),
      openSteps() {
        const row = get().visible[get().selected];
        if (!row) return;
        if (elsewhereRow(row)) return set({ message: readOnlyMessage(row) });
        const steps = get().stepView.getState();
        void steps.open(row.session_id, row.resumable).then((problem) => {
          if (problem) return set({ message: problem });
          // Its steps are worth seeing while it runs; where it runs is said over them.
          const owner = source.runningIn(row.session_id);
          if (owner) steps.say(runningElsewhereMessage(row.session_id, owner));
        });
      },
      runningElsewhere(id) {
        const owner = source.runningIn(id);
        return owner ? runningElsewhereMessage(id, owner) : null;
      },
      enter() {
        const row = get().visible[get().selected];
        if (!row) return;
        if (elsewhereRow(row)) return previewPull(row);
        if (row.resumable && !source.runningIn(row.session_id)) get().previewResume();
        else get().openSteps();
      },
      resumeSelected() {
        const row = get().visible[get().selected];
        if (!row) return;
        if (elsewhereRow(row)) return previewPull(row);
        const elsewhere = get().runningElsewhere(row.session_id);
        if (elsewhere) return set({ message: elsewhere });
        if (!row.resumable) return set({ message: whyNotResumable(row) ?? `session ${row.session_id.slice(0, 8)} cannot be resumed now` });
        get().previewResume();
      },
      previewFork(id, step) {
        const steps = get().stepView.getState();
        steps.say(`planning a fork of ${id.slice(0, 8)} from step ${step}…`);
        source.forkPlan(id, step).then(
          (lines) => {
            steps.say(null);
            set({ overlay: { kind: 'plan', action: 'fork', id, step, lines } });
          },
          (error: unknown) => steps.say((error as Error).message),
        );
      },
      quit: false,
      move(delta) {
        endWanted = false;
        const s = get();
        set(select(s.visible, clamp(s.selected + delta, 0, Math.max(0, s.visible.length - 1)), s.top, s.pageSize));
      },
      page: (direction) => get().move(direction * get().pageSize),
      jump(edge) {
        get().move(edge === 'first' ? -Infinity : Infinity);
        endWanted = edge === 'last';
      },
      cycleFilter: (direction) => view({ filter: browserFilters[(browserFilters.indexOf(get().filter) + direction + browserFilters.length) % browserFilters.length]!, top: 0 }),
      cycleScope() {
        const scope = get().scope;
        if (scope === 'here') return view({ scope: 'all', top: 0 });
        if (scope === 'team' || source.teamUnavailable === null) {
          view({ scope: scope === 'team' ? 'here' : 'team', top: 0 });
          if (get().scope === 'team' && (get().team.state === 'idle' || get().team.state === 'unreachable')) loadTeam();
          return;
        }
        const said = teamSkipSaid;
        teamSkipSaid = true;
        view({ scope: 'here', top: 0, ...(said ? {} : { message: `no team scope: ${source.teamUnavailable}` }) });
      },
      startSearch: () => set({ searching: true }),
      typeSearch(text) {
        searchedEarly = get().whole !== null;
        view({ query: text, selected: 0, top: 0 }, false);
      },
      endSearch: (keep) => (keep ? set({ searching: false }) : view({ searching: false, query: '' })),
      refresh() {
        if (get().scope === 'team') loadTeam();
        void reload(null);
      },
      replaceRows(rows) {
        const partial = get().whole !== null;
        view({ set: prepareRows(rows), whole: null });
        // Keys pressed on the first rows meant the whole list: its end, a search's best match in it.
        if (partial && endWanted) get().jump('last');
        else if (partial && searchedEarly && get().query.trim()) get().move(-Infinity);
        reloadDetails();
      },
      ask(action) {
        const row = get().visible[get().selected];
        if (!row) return;
        if (elsewhereRow(row)) return set({ message: readOnlyMessage(row) });
        if (action === 'unlock' && !get().details?.lock) {
          set({ message: `session ${row.session_id.slice(0, 8)} is not locked` });
          return;
        }
        set({ overlay: { kind: 'confirm', action, id: row.session_id } });
      },
      confirm() {
        const overlay = get().overlay;
        if (overlay?.kind === 'plan') {
          // A pull is a resume: `acode resume <id>` pulls a session this home lacks from the team store.
          set({ overlay: null, launch: overlay.action === 'fork' ? { action: 'fork', id: overlay.id, step: overlay.step } : { action: 'resume', id: overlay.id } });
          return;
        }
        if (overlay?.kind !== 'confirm') return;
        set({ overlay: null });
        const { action, id } = overlay;
        const done = `${action === 'delete' ? 'deleted' : 'unlocked'} session ${id.slice(0, 8)}`;
        void change(() => (action === 'delete' ? source.remove(id) : source.unlock(id)), done);
      },
      closeOverlay: () => set({ overlay: null }),
      toggleHelp: () => set({ overlay: get().overlay?.kind === 'help' ? null : { kind: 'help' } }),
      previewResume() {
        const row = get().visible[get().selected];
        if (!row) return;
        const owner = source.runningIn(row.session_id);
        if (owner) return set({ message: runningElsewhereMessage(row.session_id, owner) });
        set({ message: `planning the resume of ${row.session_id.slice(0, 8)}…` });
        source.plan(row.session_id).then(
          (lines) => set({ overlay: { kind: 'plan', action: 'resume', id: row.session_id, lines }, message: null }),
          (error: unknown) => set({ message: (error as Error).message }),
        );
      },
      setPageSize(rows) {
        const pageSize = Math.max(1, rows);
        const s = get();
        if (pageSize !== s.pageSize) set({ pageSize, ...select(s.visible, s.selected, s.top, pageSize) });
      },
      dismissMessage: () => set({ message: null }),
      exit: () => set({ quit: true }),
    };
    if (start) Object.assign(state, reopened(initial, cwd, start));
    const visible = visibleRows(initial, state);
    const index = Math.max(0, start ? visible.findIndex((row) => row.session_id === start.id) : 0);
    const first = visible[index];
    return { ...state, visible, whole: source.initial.whole ?? null, selected: index, selectedId: first?.session_id ?? null, top: Math.max(0, index - state.pageSize + 1), details: first ? loadDetails(first.session_id) : null };
  });
}
