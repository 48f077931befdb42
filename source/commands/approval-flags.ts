import { presetAnswer, type ApprovalDesk } from '../engine/approval.js';
import type { StepId } from '../engine/step-id.js';
import { AcodeError, ExitCode } from '../errors/acode-error.js';

export interface ApprovalFlags {
  approve?: boolean;
  response?: string;
  reject?: boolean;
}

/** `--approve`, `--response "…"` or `--reject`: the answer to the approval step `step` (a resume's first open question), else the first this run reaches. */
export function approvalsFrom(flags: ApprovalFlags, step?: StepId): ApprovalDesk | undefined {
  const given = [flags.approve ? '--approve' : '', flags.response !== undefined ? '--response' : '', flags.reject ? '--reject' : ''].filter(Boolean);
  if (given.length > 1) throw new AcodeError(`${given.join(' and ')} contradict each other: give one answer to the approval step`, ExitCode.usage);
  if (flags.response !== undefined) {
    if (!flags.response.trim()) throw new AcodeError('--response needs the text to record, e.g. --response "focus on recent work"', ExitCode.usage);
    return presetAnswer({ decision: 'edited', response: flags.response.trim() }, step);
  }
  if (flags.approve) return presetAnswer({ decision: 'approved' }, step);
  if (flags.reject) return presetAnswer({ decision: 'rejected' }, step);
  return undefined;
}
