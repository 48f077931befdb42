import type { SessionStatus } from '../engine/events.js';

/**
 * A session's statuses, their colours and their wording, defined once: the session file schema,
 * `--status`, `sessions list`/`show`, the closing lines, the plain lines, the run view and the
 * browser all read them from here. Pure data: the browser's first frame imports it.
 */
export const sessionStatuses = ['created', 'running', 'awaiting_approval', 'paused', 'completed', 'failed', 'cancelled'] as const satisfies readonly SessionStatus[];

// Every status the engine knows is listed above (a new one fails to compile until it is).
const everyStatusListed: Exclude<SessionStatus, (typeof sessionStatuses)[number]> extends never ? true : never = true;
void everyStatusListed;

/** The colours statuses are drawn in: Ink colour names, and their SGR codes for plain terminals. */
export const hueCodes = { white: 37, cyan: 36, magenta: 35, yellow: 33, green: 32, red: 31, gray: 90 } as const;
export type Hue = keyof typeof hueCodes;

interface StatusWords {
  /** The browser's word for it. */
  label: string;
  hue: Hue;
  /** How a run that ended (or stopped) in it is announced; live statuses have none. */
  headline?: string;
}

export const statusWords: Record<SessionStatus, StatusWords> = {
  created: { label: 'created', hue: 'white' },
  running: { label: 'running', hue: 'cyan' },
  awaiting_approval: { label: 'to approve', hue: 'magenta', headline: '⏸ awaiting approval' },
  paused: { label: 'paused', hue: 'yellow', headline: '⏸ paused' },
  completed: { label: 'completed', hue: 'green', headline: '✓ completed' },
  failed: { label: 'failed', hue: 'red', headline: '✗ failed' },
  cancelled: { label: 'cancelled', hue: 'gray', headline: '■ cancelled' },
};

/** What the browser lists besides a stored status: a session whose process is gone, or whose files are unreadable. */
export const rowStates = {
  interrupted: { label: 'interrupted', hue: 'yellow' },
  damaged: { label: 'damaged', hue: 'red' },
} as const satisfies Record<string, StatusWords>;

/** The headline of a status that has one (a run's end). */
export function headline(status: 'awaiting_approval' | 'paused' | 'completed' | 'failed' | 'cancelled'): string {
  return statusWords[status].headline!;
}

/** The browser's header order: what needs attention first, so the counts never reshuffle as rows change. */
export const labelOrder: readonly string[] = [
  statusWords.running.label,
  rowStates.interrupted.label,
  statusWords.awaiting_approval.label,
  statusWords.paused.label,
  statusWords.created.label,
  statusWords.completed.label,
  statusWords.failed.label,
  statusWords.cancelled.label,
  rowStates.damaged.label,
];

const hueOfLabel = new Map<string, Hue>([...Object.values(statusWords), ...Object.values(rowStates)].map((w) => [w.label, w.hue]));

/** The colour of a browser label (a status's or a row state's). */
export function labelHue(label: string): Hue | undefined {
  return hueOfLabel.get(label);
}
