import type { StepId } from './step-id.js';
import type { ApprovalDecision } from './events.js';

/** What an approval step asks: its rendered prompt, what to decide on, and the response an approval records. */
export interface ApprovalRequest {
  step: StepId;
  prompt: string;
  context: string;
  defaultResponse: string;
}

export type ApprovalAnswer = { decision: Exclude<ApprovalDecision, 'edited'> } | { decision: 'edited'; response: string };

/**
 * Who answers approval steps: the run view, answers given on the command line, or nobody — then
 * the session waits in AWAITING_APPROVAL for `acode resume`. Resolves undefined when nobody
 * answers (or the run is stopped while waiting).
 */
export interface ApprovalDesk {
  answer(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer | undefined>;
}

/**
 * `--approve`, `--response "…"`, `--reject`: answers one approval step — the one named by `step`
 * (the question the session was waiting on first, as its plan lists it), or, without one, the first
 * approval this run reaches. Branches may ask several at once: the others wait for the next answer.
 */
export function presetAnswer(answer: ApprovalAnswer, step?: StepId): ApprovalDesk {
  let used = false;
  return {
    answer: async (request) => {
      if (used || (step !== undefined && request.step !== step)) return undefined;
      used = true;
      return answer;
    },
  };
}
