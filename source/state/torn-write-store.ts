import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ChangesStore } from './changes-store.js';

/** What a person chose for writes torn when the session stopped. */
export type TornDecision = 'rollback' | 'retry' | 'abort';

/** The torn-write question: choosing, or looking at a torn file (a diff: its snapshot against now). */
export interface TornWriteState {
  mode: 'choose' | 'view';
  /** The highlighted choice, kept while a torn file is viewed. */
  highlighted: number;
  decision?: TornDecision;
  highlight(index: number): void;
  view(): void;
  back(): void;
  decide(decision: TornDecision): void;
}

export interface TornWriteStoreInit {
  /** The torn files as the diff view shows them (their diffs load through it, from the command layer). */
  files: ChangesStore;
  onDecide(decision: TornDecision): void;
}

export type TornWriteStore = StoreApi<TornWriteState>;

export function createTornWriteStore(init: TornWriteStoreInit): TornWriteStore {
  return createStore<TornWriteState>()((set, get) => ({
    mode: 'choose',
    highlighted: 0,
    highlight: (index) => set({ highlighted: index }),
    view() {
      init.files.getState().openDiff();
      set({ mode: 'view' });
    },
    back: () => set({ mode: 'choose' }),
    decide(decision) {
      if (get().decision) return;
      set({ decision });
      init.onDecide(decision);
    },
  }));
}
