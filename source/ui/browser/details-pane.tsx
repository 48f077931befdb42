import { useStore } from 'zustand';
import type { BrowserStore } from '../../state/browser-store.js';
import { detailsLines } from './browser-lines.js';
import { Lines } from './line-text.js';

/** The selected session: its steps, last response, why it stopped and who holds its lock. */
export function DetailsPane({ store, width }: { store: BrowserStore; width: number }) {
  const details = useStore(store, (s) => s.details);
  return <Lines lines={detailsLines(details)} width={width} />;
}
