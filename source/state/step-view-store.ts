import { createStore, type StoreApi } from 'zustand/vanilla';
import type { SessionStep } from './session-steps.js';
import { stepDetailLines } from './step-detail-lines.js';
import type { StepResult } from './step-results.js';

/** One step of the step view: where it stands, how it is named on the command line, what it did. */
export interface ViewedStep {
  step: SessionStep;
  /** Its number in a chain, else its id (as `sessions show --step` takes it). */
  ref: string;
  result: StepResult | undefined;
  /** Undefined when the model's price is unknown (or it spent nothing). */
  dollars: number | undefined;
}

/** A session's steps as the step view shows them, read through the browser's source port. */
export interface SessionStepsView {
  id: string;
  workflow: string;
  pattern: string;
  /** Whether a resume could continue it now (`r`). */
  resumable: boolean;
  /** Its status as its log tells it, and why it stopped: what the title says of a session that has ended. */
  status?: string;
  stopReason?: string | null;
  steps: ViewedStep[];
}

export interface StepViewState {
  /** The session whose steps are shown; null while closed. */
  session: SessionStepsView | null;
  /** The session being read (Enter was pressed, the steps are not in yet). */
  loading: string | null;
  selected: number;
  /** First visible row of the list. */
  top: number;
  /** Rows the list (or the response) has on screen. */
  pageSize: number;
  /** Columns the response wraps at. */
  columns: number;
  /** The selected step's response and tool calls, wrapped to the width; null while the list shows. */
  detail: { lines: string[]; top: number } | null;
  message: string | null;
  /** Reads the session's steps and shows them (the browser's Enter); resolves with why it could not, or null. */
  open(id: string, resumable: boolean): Promise<string | null>;
  close(): void;
  move(delta: number): void;
  page(direction: 1 | -1): void;
  /** Enter on a step: its whole response. */
  openStep(): void;
  /** Esc in the response: back to the list. */
  closeStep(): void;
  /** Scrolls the response by lines. */
  scroll(delta: number): void;
  setSize(rows: number, columns: number): void;
  say(message: string | null): void;
}

export type StepViewStore = StoreApi<StepViewState>;

/** Reads a session's steps: the browser source port's `steps`. */
export type ReadSteps = (id: string, resumable: boolean) => Promise<SessionStepsView>;

const clamp = (value: number, min: number, max: number) => Math.max(min, Math.min(max, value));

/**
 * Lines wrapped at `width` columns (a line longer than the screen goes on below, not off its edge):
 * at word boundaries, each continuation under the line's own indent (a response's two spaces); a
 * word wider than the room left is cut where the edge falls. Measured in code points.
 */
export function wrapLines(lines: readonly string[], width: number): string[] {
  const w = Math.max(10, width);
  return lines.flatMap((line) => wrapLine(line, w));
}

function wrapLine(line: string, w: number): string[] {
  const length = (text: string) => [...text].length;
  if (length(line) <= w) return [line];
  const indent = /^\s*/.exec(line)![0];
  // An indent of half the width or more would leave too little room: continuations start at the edge.
  const pad = length(indent) < w / 2 ? indent : '';
  const parts: string[] = [];
  let current = indent;
  let filled = false;
  for (let word of line.slice(indent.length).split(' ')) {
    if (length(current) + (filled ? 1 : 0) + length(word) <= w) {
      current += `${filled ? ' ' : ''}${word}`;
      filled ||= word !== '';
      continue;
    }
    if (filled) {
      // The spaces where the line breaks are drawn as the break itself.
      parts.push(current.trimEnd());
      current = pad;
      filled = false;
    }
    // A word wider than a whole line: cut where the edge falls, then go on with its rest.
    while (length(current) + length(word) > w) {
      const room = Math.max(1, w - length(current));
      const chars = [...word];
      parts.push(current + chars.slice(0, room).join(''));
      word = chars.slice(room).join('');
      current = pad;
    }
    current += word;
    filled = word !== '';
  }
  parts.push(current);
  return parts;
}

/**
 * A step's response and tool calls, as lines that fit `columns`. A tab is two spaces, as in the run
 * view's tail: Ink counts it no columns where the terminal jumps to the next stop, so a line of tabs
 * overflowed the width and the frame scrolled.
 */
const detailLines = (viewed: ViewedStep, columns: number) =>
  wrapLines(stepDetailLines(viewed.step, viewed.ref, viewed.result, viewed.dollars).map((line) => line.replaceAll('\t', '  ')), columns);

/** The step view's state: which session, which step, how far its response is scrolled. */
export function createStepViewStore(read: ReadSteps): StepViewStore {
  /** Only the latest Enter's read is shown. */
  let reading = 0;
  return createStore<StepViewState>()((set, get) => ({
    session: null,
    loading: null,
    selected: 0,
    top: 0,
    pageSize: 10,
    columns: 80,
    detail: null,
    message: null,
    open(id, resumable) {
      const ticket = ++reading;
      set({ loading: id, message: null });
      return read(id, resumable).then(
        (session) => {
          if (ticket === reading) set({ session, loading: null, selected: 0, top: 0, detail: null, message: null });
          return null;
        },
        (error: unknown) => {
          if (ticket !== reading) return null;
          // The view closes: the list says why.
          set({ loading: null });
          return `cannot read the steps of ${id.slice(0, 8)}: ${(error as Error).message}`;
        },
      );
    },
    close() {
      reading++;
      set({ session: null, loading: null, detail: null, message: null });
    },
    move(delta) {
      const { session, selected, top, pageSize } = get();
      if (!session) return;
      const index = clamp(selected + delta, 0, Math.max(0, session.steps.length - 1));
      set({ selected: index, top: clamp(top, Math.max(0, index - pageSize + 1), index), message: null });
    },
    page: (direction) => (get().detail ? get().scroll(direction * get().pageSize) : get().move(direction * get().pageSize)),
    openStep() {
      const { session, selected, columns } = get();
      const viewed = session?.steps[selected];
      if (!viewed) return;
      set({ detail: { lines: detailLines(viewed, columns), top: 0 } });
    },
    closeStep: () => set({ detail: null }),
    scroll(delta) {
      const { detail, pageSize } = get();
      if (!detail) return;
      set({ detail: { ...detail, top: clamp(detail.top + delta, 0, Math.max(0, detail.lines.length - pageSize)) } });
    },
    setSize(rows, columns) {
      const pageSize = Math.max(3, rows);
      if (pageSize === get().pageSize && columns === get().columns) return;
      const { detail, session, selected } = get();
      const viewed = session?.steps[selected];
      // The response is wrapped again to the new width, scrolled as far as it still can be.
      const lines = detail && viewed ? detailLines(viewed, columns) : null;
      set({ pageSize, columns, detail: lines && detail ? { lines, top: clamp(detail.top, 0, Math.max(0, lines.length - pageSize)) } : detail });
    },
    say: (message) => set({ message }),
  }));
}
