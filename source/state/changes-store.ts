import { createStore, type StoreApi } from 'zustand/vanilla';

/** A changed file as a person is shown it: the change, plus where the session last saw it. */
export interface ChangeView {
  path: string;
  /** Path relative to the session's working directory. */
  shown: string;
  kind: 'modified' | 'deleted' | 'created';
  size: number;
  changedAgo: string | null;
  lastSeen: string;
}

export type ChangesMode = 'list' | 'diff';

/** The changed-file prompt: which file is selected, whether its diff is open, and where it is scrolled. */
export interface ChangesState {
  sessionId: string;
  changes: readonly ChangeView[];
  selected: number;
  mode: ChangesMode;
  diff: readonly string[];
  scroll: number;
  /** Diff lines that fit on screen; the view reports it as the terminal resizes. */
  pageSize: number;
  decision?: 'continue' | 'abort';
  move(delta: number): void;
  openDiff(): void;
  back(): void;
  switchFile(delta: number): void;
  scrollBy(delta: number): void;
  setPageSize(rows: number): void;
  decide(decision: 'continue' | 'abort'): void;
}

export interface ChangesStoreInit {
  sessionId: string;
  changes: readonly ChangeView[];
  /** Reads the diff of change `index` (the command layer touches the disk, not the store). */
  loadDiff(index: number): string[];
  onDecide(decision: 'continue' | 'abort'): void;
}

export type ChangesStore = StoreApi<ChangesState>;

const clamp = (value: number, min: number, max: number) => Math.max(min, Math.min(max, value));

export function createChangesStore(init: ChangesStoreInit): ChangesStore {
  const last = init.changes.length - 1;
  return createStore<ChangesState>()((set, get) => ({
    sessionId: init.sessionId,
    changes: init.changes,
    selected: 0,
    mode: 'list',
    diff: [],
    scroll: 0,
    pageSize: 20,
    move: (delta) => set({ selected: clamp(get().selected + delta, 0, last) }),
    openDiff: () => set({ mode: 'diff', diff: init.loadDiff(get().selected), scroll: 0 }),
    back: () => set({ mode: 'list' }),
    switchFile(delta) {
      const selected = clamp(get().selected + delta, 0, last);
      if (selected !== get().selected) set({ selected, diff: init.loadDiff(selected), scroll: 0 });
    },
    scrollBy(delta) {
      const { diff, pageSize, scroll } = get();
      set({ scroll: clamp(scroll + delta, 0, Math.max(0, diff.length - pageSize)) });
    },
    setPageSize: (rows) => set({ pageSize: Math.max(3, rows) }),
    decide(decision) {
      if (get().decision) return;
      set({ decision });
      init.onDecide(decision);
    },
  }));
}
