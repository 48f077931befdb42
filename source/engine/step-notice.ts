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

export type NoticeListener = (notice: StepNotice) => void;
