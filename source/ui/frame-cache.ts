/**
 * What was learnt in the last two frames: a line, a width, a row, a text's size. What a frame uses
 * again is found (and kept for the next); what no frame has used since the one before is dropped.
 * Caches that kept 1,024 entries (a line: an object per character) held what streamed text went
 * through for seconds — long enough to be promoted to V8's old generation and collected there,
 * which cost more than drawing the text: 13–18 MB more heap after a minute, and major collections.
 * The bundle's Output (ink-output.ts) turns them as it draws a frame.
 */
export class FrameCache<V> {
  private current = new Map<string, V>();
  private previous = new Map<string, V>();

  /** Entries kept now, in both frames' maps. */
  get size(): number {
    return this.current.size + this.previous.size;
  }

  get(key: string): V | undefined {
    let value = this.current.get(key);
    if (value === undefined) {
      value = this.previous.get(key);
      if (value !== undefined) this.current.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.current.set(key, value);
  }

  /** A frame begins: what the frame before did not use is let go. */
  turn(): void {
    this.previous = this.current;
    this.current = new Map();
  }
}

let turned = false;

/**
 * The caches turn once a frame: at the first Output drawn in a turn of the event loop (Ink draws a
 * frame's live part and its <Static> part with two, one after the other).
 */
export function frameBegins(): void {
  if (turned) return;
  turned = true;
  queueMicrotask(() => {
    turned = false;
  });
  for (const cache of frameCaches) cache.turn();
}

const frameCaches: FrameCache<unknown>[] = [];

/** A cache of what the last two frames used, turned as each frame is drawn. */
export function frameCache<V>(): FrameCache<V> {
  const cache = new FrameCache<V>();
  frameCaches.push(cache as FrameCache<unknown>);
  return cache;
}

/** Entries every frame cache keeps now: what the frames shown last hold, however many frames went before. */
export function frameCacheEntries(): number {
  return frameCaches.reduce((sum, cache) => sum + cache.size, 0);
}
