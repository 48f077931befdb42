/** A write that failed because the disk (or the user's quota) is full, and the file it was writing. */
export interface DiskFull {
  /** Undefined when the error does not say (a write to an open descriptor). */
  path?: string;
}

/**
 * Recognises a full disk in any error a write threw (ENOSPC, EDQUOT). Such a run is paused, to be
 * resumed once space is freed, never failed or crashed: nothing is wrong with the session.
 */
export function diskFull(error: unknown): DiskFull | undefined {
  const { code, path } = (error ?? {}) as { code?: unknown; path?: unknown };
  if (code !== 'ENOSPC' && code !== 'EDQUOT') return undefined;
  return { path: typeof path === 'string' ? path : undefined };
}
