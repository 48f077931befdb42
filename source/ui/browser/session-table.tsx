import { useStore } from 'zustand';
import { unloadedRows, type BrowserStore } from '../../state/browser-store.js';
import { tableLines, topLines } from './browser-lines.js';
import { Lines } from './line-text.js';

/** The windowed table: only the rows that fit are rendered, with ▲/▼ counts for the rest. */
export function SessionTable({ store, width, now }: { store: BrowserStore; width: number; now: number }) {
  const visible = useStore(store, (s) => s.visible);
  const top = useStore(store, (s) => s.top);
  const pageSize = useStore(store, (s) => s.pageSize);
  const selected = useStore(store, (s) => s.selected);
  const unloaded = useStore(store, unloadedRows);
  const query = useStore(store, (s) => s.query);
  // Rows the lines above the table take from it (a wrapped message).
  const taken = useStore(store, (s) => topLines(s, width, s.pageSize).length - 1);
  return <Lines lines={tableLines({ visible, top, pageSize, selected, unloaded, query, taken }, width, now)} />;
}
