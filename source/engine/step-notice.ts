import type { StepId } from './step-id.js';

/**
 * What a running step says as it goes, for whoever watches (the run view, `--stream`): the model's
 * answer as it arrives and the tool calls it starts. Not events: never journaled, never replayed —
 * an attempt cut short shows text that no journal holds, and the step's answer is journaled once,
 * whole, with step_completed. Text is raw as the model sent it: whoever shows it redacts it.
 */
export type StepNotice =
  | { type: 'step_text'; step: StepId; attempt: number; text: string }
  | { type: 'step_tool_call'; step: StepId; attempt: number; name: string };

/**
 * Returns a promise when it cannot take more yet (`--stream` into a pipe its reader has not emptied):
 * the step's answer is then read no further off its connection until it settles, so what waits for a
 * slow reader is bounded. It must settle (a reader that left settles it at once).
 */
export type NoticeListener = (notice: StepNotice) => void | Promise<void>;

/** Told of a notice: a promise while some listener cannot take more yet (see NoticeListener). */
export type Notify = (notice: StepNotice) => Promise<void> | undefined;
