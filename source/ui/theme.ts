import type { StepStatus } from '../state/run-store.js';

/** Step glyphs and colours, one place for the run view and the plain-line printer. */
export const stepGlyph: Record<StepStatus, string> = {
  pending: '○',
  running: '●',
  waiting: '◷',
  done: '✓',
  skipped: '↷',
  failed: '✗',
};

export const stepColor: Record<StepStatus, string | undefined> = {
  pending: 'gray',
  running: 'cyan',
  waiting: 'yellow',
  done: 'green',
  skipped: 'blueBright',
  failed: 'red',
};

/** Characters a search matched, in the session browser's rows. */
export const searchMatch = { color: 'yellow', bold: true, underline: true } as const;
