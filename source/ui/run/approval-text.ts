import { stepName } from '../../engine/step-names.js';
import { typedResponse, type RunState } from '../../state/run-store.js';
import { approvalBindings as b, approvalEditBindings, hints, rejectBindings } from '../keys/bindings.js';
import { terminalText } from '../../printable-text.js';

/**
 * What the approval panel says, worked out from the run's state: the panel draws it, and the live
 * area's budget (live-rows.ts) counts its rows as they wrap — the same text both ways.
 */
export interface ApprovalPanelText {
  title: string;
  prompt: string;
  context: string;
  /** The lines that take the keys' row in turn (the keys, the reject question): counted at the tallest. */
  keys: readonly string[];
  /** The response being typed (null: the editor is closed): its row, and the editor's keys under it. */
  input: string | null;
}

/** The editor's row: the label, what is typed, and the cursor after it. */
export const responseLabel = 'response › ';
export const rejectQuestion = 'Reject cancels the session. Reject? ';
export const editKeys = hints(approvalEditBindings);

/** "a approve (records "approved") · e edit a response · r reject". */
export const approvalKeys = (defaultResponse: string) => `${b['approval.approve'].label} (records "${defaultResponse}") · ${b['approval.edit'].label} · ${b['approval.reject'].label}`;

/** The panel's text while an approval is asked (null: none is). */
export function approvalPanelText(s: Pick<RunState, 'approval' | 'approvalInput' | 'pattern'>): ApprovalPanelText | null {
  const { approval } = s;
  if (!approval) return null;
  // The step's name as its row shows it ("step 2", "step web/2", "step review"; a workflow task "1" is not "step 2").
  return {
    title: `approval needed · step ${stepName(s.pattern, approval.step)}`,
    prompt: terminalText(approval.prompt),
    context: terminalText(approval.context),
    keys: [approvalKeys(terminalText(approval.defaultResponse)), rejectQuestion + hints(rejectBindings)],
    input: typedResponse(s),
  };
}
