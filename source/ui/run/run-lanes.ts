import type { StepStatus, StepView } from '../../state/run-store.js';
import { patternWords } from '../../engine/patterns/pattern-for.js';

/**
 * A lane of the run view: a DAG level of a workflow, a branch of a parallel run, or a step of its own
 * (a parallel reduce). Steps keep their shape order inside it.
 */
export interface Lane {
  key: string;
  /** "level 2", "branch web", "reduce": what its header says. */
  label: string;
  steps: StepView[];
  counts: Record<StepStatus, number>;
  /** Nothing left to run in it (every step done, skipped or failed). */
  finished: boolean;
  /** When its last step ended, in events: finished lanes are printed in this order. */
  finishedSeq: number;
}

const ended = (step: StepView) => step.status === 'done' || step.status === 'skipped' || step.status === 'failed';
/** A step under way: running, or waiting (on a retry, on a person). */
export const active = (step: StepView) => step.status === 'running' || step.status === 'waiting';

function countStatuses(steps: readonly StepView[]): Record<StepStatus, number> {
  const counts: Record<StepStatus, number> = { pending: 0, running: 0, waiting: 0, done: 0, skipped: 0, failed: 0 };
  for (const step of steps) counts[step.status]++;
  return counts;
}

/** Steps grouped into lanes, in the order their first step appears in the shape. */
export function lanesOf(steps: readonly StepView[], pattern: string): Lane[] {
  const byKey = new Map<string, StepView[]>();
  for (const step of steps) {
    // A step outside every group (a parallel reduce) is a lane of its own.
    const key = step.group ?? `step:${step.id}`;
    const lane = byKey.get(key);
    if (lane) lane.push(step);
    else byKey.set(key, [step]);
  }
  return [...byKey].map(([key, laneSteps]) => {
    const first = laneSteps[0]!;
    const label = first.group === null ? first.title : patternWords(pattern).laneLabel(first.group);
    const finished = laneSteps.every(ended);
    return { key, label, steps: laneSteps, counts: countStatuses(laneSteps), finished, finishedSeq: finished ? Math.max(...laneSteps.map((s) => s.finishedSeq ?? 0)) : 0 };
  });
}

/** Lanes printed once, in the order they finished: the order <Static> needs (items are only appended). */
export function finishedLanes(lanes: readonly Lane[]): Lane[] {
  return lanes.filter((lane) => lane.finished).sort((a, b) => a.finishedSeq - b.finishedSeq);
}

/** A lane as the live area draws it: its header, the rows shown, and how many pending rows are only counted. */
export interface LiveLane {
  kind: 'lane';
  lane: Lane;
  rows: StepView[];
  /** Pending steps not shown as rows. */
  morePending: number;
  /** Steps under way not shown as rows (only where the terminal is too short for them all), running and waiting. */
  moreActive: { running: number; waiting: number };
}

export type LiveEntry = LiveLane | { kind: 'more'; lanes: number; steps: number; running: number };

/** A lane up to this size lists every step while it runs; a larger one lists what runs and the next few. */
const smallLane = 6;
const pendingShown = 3;

const noneActive = { running: 0, waiting: 0 };
const hiddenActive = (entry: LiveLane) => entry.moreActive.running + entry.moreActive.waiting;

function fullRows(lane: Lane): Omit<LiveLane, 'kind' | 'lane'> {
  if (lane.steps.length <= smallLane) return { rows: lane.steps, morePending: 0, moreActive: noneActive };
  const pending = lane.steps.filter((step) => step.status === 'pending');
  const shownPending = new Set(pending.slice(0, pendingShown));
  const rows = lane.steps.filter((step) => active(step) || step.status === 'failed' || shownPending.has(step));
  return { rows, morePending: pending.length - shownPending.size, moreActive: noneActive };
}

const height = (entry: LiveLane) => 1 + entry.rows.length + (entry.morePending > 0 ? 1 : 0) + (hiddenActive(entry) > 0 ? 1 : 0);

/**
 * The unfinished lanes, fitted into `budget` lines — the live area must never outgrow the terminal
 * (Ink then redraws the whole screen on every frame). In turn, until they fit: idle lanes at the end
 * fold into one "… n more" line, idle lanes left shrink to their header, running lanes drop their
 * finished and pending rows, running lanes at the end fold too, and, last, the lanes left count
 * the rows under way past those that fit on one line ("… 3 more running": five tasks of a level at
 * once in an 8-row terminal), down to none ("… 5 running").
 */
export function liveLanes(lanes: readonly Lane[], budget: number): LiveEntry[] {
  const idle = (entry: LiveLane) => !entry.lane.steps.some(active);
  const entries: LiveLane[] = lanes.filter((lane) => !lane.finished).map((lane) => ({ kind: 'lane', lane, ...fullRows(lane) }));
  let used = entries.reduce((sum, entry) => sum + height(entry), 0);
  let cut = entries.length;
  const fold = (may: (entry: LiveLane) => boolean) => {
    while (used > budget && cut > 1 && may(entries[cut - 1]!)) {
      cut--;
      used -= height(entries[cut]!);
      if (cut === entries.length - 1) used += 1; // the "… n more" line itself
    }
  };
  const shrink = (rows: (entry: LiveLane) => StepView[]) => {
    for (let i = cut - 1; i >= 0 && used > budget; i--) {
      const entry = entries[i]!;
      const kept = { ...entry, rows: rows(entry), morePending: 0 };
      used -= height(entry) - height(kept);
      entries[i] = kept;
    }
  };
  fold(idle);
  shrink((entry) => (idle(entry) ? [] : entry.rows));
  shrink((entry) => entry.rows.filter(active));
  fold(() => true);
  for (let i = cut - 1; i >= 0 && used > budget; i--) {
    const entry = entries[i]!;
    const keep = Math.max(0, entry.rows.length - (used - budget) - (hiddenActive(entry) > 0 ? 0 : 1));
    if (keep >= entry.rows.length) continue;
    const hidden = entry.rows.slice(keep);
    const waiting = hidden.filter((step) => step.status === 'waiting').length;
    const kept = { ...entry, rows: entry.rows.slice(0, keep), moreActive: { running: entry.moreActive.running + hidden.length - waiting, waiting: entry.moreActive.waiting + waiting } };
    used -= height(entry) - height(kept);
    entries[i] = kept;
  }
  if (cut === entries.length) return entries;
  const rest = entries.slice(cut);
  return [
    ...entries.slice(0, cut),
    { kind: 'more', lanes: rest.length, steps: rest.reduce((sum, entry) => sum + entry.lane.steps.length, 0), running: rest.reduce((sum, entry) => sum + entry.lane.counts.running, 0) },
  ];
}
