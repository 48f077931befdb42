import { presetAnswer, type ApprovalDesk } from '../engine/approval.js';
import { AcodeError, ExitCode } from '../errors/acode-error.js';

export interface ApprovalFlags {
  approve?: boolean;
  response?: string;
  reject?: boolean;
}

/** `--approve`, `--response "…"` or `--reject`: the answer to the approval step this run reaches first. */
export function approvalsFrom(flags: ApprovalFlags): ApprovalDesk | undefined {
  const given = [flags.approve ? '--approve' : '', flags.response !== undefined ? '--response' : '', flags.reject ? '--reject' : ''].filter(Boolean);
  if (given.length > 1) throw new AcodeError(`${given.join(' and ')} contradict each other: give one answer to the approval step`, ExitCode.usage);
  if (flags.response !== undefined) {
    if (!flags.response.trim()) throw new AcodeError('--response needs the text to record, e.g. --response "focus on recent work"', ExitCode.usage);
    return presetAnswer({ decision: 'edited', response: flags.response.trim() });
  }
  if (flags.approve) return presetAnswer({ decision: 'approved' });
  if (flags.reject) return presetAnswer({ decision: 'rejected' });
  return undefined;
}
