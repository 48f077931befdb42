/** 1234 → "1.2k", 2_500_000 → "2.5M": token counts at a glance. */
export function formatCount(value: number): string {
  if (value < 1000) return String(value);
  if (value < 1_000_000) return `${(value / 1000).toFixed(value < 10_000 ? 1 : 0)}k`;
  return `${(value / 1_000_000).toFixed(1)}M`;
}

/** 850 → "0.9s", 75_000 → "1m15s". */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes}m${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')}s`;
}

/** How long ago `at` (ms since epoch) was: "12s ago", "3m ago", "5h ago", "2d ago". */
export function formatAgo(at: number, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`;
  return `${Math.floor(seconds / 86_400)}d ago`;
}

/** 900 → "900 B", 1300 → "1.3 KB", 2_500_000 → "2.4 MB". */
export function formatBytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** "1 step", "3 steps"; `many` where the plural is not the word and an s ("branches"). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A folder as a person reads it: under `home`, `~/src/app` (home itself `~`); elsewhere as it is. */
export function homeRelative(path: string, home: string | undefined): string {
  if (!home || home === '/') return path;
  const base = home.endsWith('/') ? home.slice(0, -1) : home;
  if (path === base) return '~';
  return path.startsWith(`${base}/`) ? `~${path.slice(base.length)}` : path;
}
