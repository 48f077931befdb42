import { useMemo } from 'react';
import wrapAnsi from 'wrap-ansi';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import { formatCount, formatDuration } from '../../human-units.js';
import type { RetryCountdown, RunState, RunStore } from '../../state/run-store.js';
import { runSpendText } from '../../state/step-cost.js';
import { runBindings } from '../keys/bindings.js';
import { approvalHint } from '../../state/approval-hint.js';
import { headline, statusWords } from '../../session/status-words.js';
import type { Line } from '../browser/browser-lines.js';

/**
 * The lines under the steps while a run is live — the totals, the spend, a retry's countdown, the
 * outcome — as the segments they are drawn with (LineText), and how many rows they take at a width: the
 * live area's budget (live-rows.ts) counts them as drawn, wrapped at a narrow terminal's width.
 */

/** "1 skipped (completed earlier)" in a resume; in a fork, "2 reused from 5f56…": a fork skips nothing. */
export function notRunText(skipped: number, forkOf: string | null): string {
  return forkOf === null ? `${skipped} skipped (completed earlier)` : `${skipped} reused from ${forkOf}`;
}

/** "2/5 done · 1 skipped (completed earlier) · 3 remaining · tokens 1.2k in / 300 out · 4.1s". */
export function summaryLine(s: Pick<RunState, 'steps' | 'skipped' | 'tokens' | 'pattern' | 'forkOf'>, elapsedMs: number): Line {
  const done = s.steps.filter((step) => step.status === 'done' || step.status === 'skipped').length;
  const running = s.steps.filter((step) => step.status === 'running').length;
  const dot = { text: ' · ', dim: true };
  return [
    { text: `${done}/${s.steps.length} done`, bold: true },
    dot,
    { text: notRunText(s.skipped, s.forkOf), color: 'blueBright' },
    dot,
    { text: `${s.steps.length - done} remaining` },
    dot,
    ...(s.pattern !== 'chain' ? [{ text: `${running} running`, color: 'cyan' }, dot] : []),
    { text: `tokens ${formatCount(s.tokens.input)} in / ${formatCount(s.tokens.output)} out` },
    dot,
    { text: formatDuration(elapsedMs) },
  ];
}

/**
 * "rate limited (HTTP 429) — retry 2/5 in 41 s; r retry now · a abort". It counts retries, not
 * attempts: the step's first try is not one, so its 6th attempt is "retry 5/5".
 */
export function countdownLine(retry: RetryCountdown, seconds: number): Line {
  return [
    { text: retry.reason, color: 'yellow' },
    { text: ` — retry ${retry.attempt}/${retry.maxAttempts} in ` },
    { text: `${seconds} s`, bold: true },
    { text: '; ' },
    { text: `${runBindings['run.retryNow'].label} · ${runBindings['run.abandon'].label}`, dim: true },
  ];
}

/** The run's outcome under the totals, line by line: the pause hint while it runs, what a stop waits for, how it ended. */
export function outcomeLines(s: Pick<RunState, 'phase' | 'message' | 'sessionId' | 'saved' | 'artifacts' | 'approval'>): Line[] {
  const ended = (status: 'paused' | 'failed' | 'cancelled') => ({ text: `${headline(status)}: ${s.message ?? ''}`, color: statusWords[status].hue });
  switch (s.phase) {
    case 'starting':
    case 'running':
      return [[{ text: runBindings['run.pause'].label, dim: true }]];
    case 'stopping':
      return [[{ text: `${s.message ? `${s.message} ` : ''}(Ctrl+C again to quit now)`, color: 'yellow' }]];
    case 'completed':
      return [[{ text: headline('completed'), color: statusWords.completed.hue }], ...s.artifacts.map((path) => [{ text: `  wrote ${path}`, dim: true }])];
    case 'paused':
      if (!s.saved) return [[ended('paused')], [{ text: 'nothing to resume: the run kept no session (--no-save-session)', dim: true }]];
      return [[ended('paused')], [{ text: 'Resume with: ' }, { text: `acode resume ${s.sessionId}`, bold: true }]];
    case 'failed':
    case 'cancelled':
      return [[ended(s.phase)]];
    case 'awaiting_approval':
      // Asked here, the panel above says the rest.
      if (s.approval) return [[{ text: `${runBindings['run.pause'].label} (the session keeps waiting for its answer)`, dim: true }]];
      return [[{ text: headline('awaiting_approval'), color: statusWords.awaiting_approval.hue }], [{ text: approvalHint(s.sessionId) }]];
  }
}

/** Rows `text` takes in a terminal `columns` wide, wrapped by Ink's own wrapping of a Text (words whole where they fit, a longer one cut). */
export function wrappedRows(text: string, columns: number): number {
  return wrapAnsi(text, Math.max(1, columns), { trim: false, hard: true }).split('\n').length;
}

const plain = (line: Line) => line.map((segment) => segment.text).join('');

/** The widest the elapsed time reads in a run's first 16 hours ("999m59s"): the totals are counted at it, not at each tick's. */
const widestElapsed = 999 * 60_000 + 59_000;

/** What the rows under the steps are worked out from. */
type BelowState = Pick<RunState, 'steps' | 'skipped' | 'forkOf' | 'tokens' | 'pattern' | 'dollars' | 'saving' | 'retry' | 'phase' | 'message' | 'sessionId' | 'saved' | 'artifacts' | 'approval'>;

/**
 * Rows under a live run's steps: a blank row, the totals, the spend (when priced), a retry's
 * countdown, the outcome (the pause hint, what a stop waits for, how the run ended: the last frame
 * must fit as well) — each as many rows as it wraps to at `columns`.
 */
export function rowsBelow(s: BelowState, columns: number): number {
  const spend = runSpendText(s.dollars, s.saving);
  return (
    1 +
    wrappedRows(plain(summaryLine(s, widestElapsed)), columns) +
    (spend ? wrappedRows(spend, columns) : 0) +
    // The countdown only shrinks: counted at the wait it began with.
    (s.retry ? wrappedRows(plain(countdownLine(s.retry, Math.max(0, Math.ceil((s.retry.at - s.retry.since) / 1000)))), columns) : 0) +
    outcomeLines(s).reduce((rows, line) => rows + wrappedRows(plain(line), columns), 0)
  );
}

/** rowsBelow of the run now, at the terminal's width: worked out again only when what it reads changed (not on each streamed piece). */
export function useRowsBelow(store: RunStore, columns: number): number {
  const below: BelowState = useStore(
    store,
    useShallow((s) => ({ steps: s.steps, skipped: s.skipped, forkOf: s.forkOf, tokens: s.tokens, pattern: s.pattern, dollars: s.dollars, saving: s.saving, retry: s.retry, phase: s.phase, message: s.message, sessionId: s.sessionId, saved: s.saved, artifacts: s.artifacts, approval: s.approval })),
  );
  // useShallow keeps the object while every field is the same: it is what changes.
  return useMemo(() => rowsBelow(below, columns), [below, columns]);
}
