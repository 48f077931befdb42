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

/** `--approve`, `--response "…"`, `--reject`: answers the first approval step this run reaches. */
export function presetAnswer(answer: ApprovalAnswer): ApprovalDesk {
  let used = false;
  return {
    answer: async () => {
      if (used) return undefined;
      used = true;
      return answer;
    },
  };
}
