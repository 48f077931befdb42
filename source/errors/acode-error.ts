/** Exit codes fixed by DESIGN.md §1. */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  noResumableSession: 14,
  terminalState: 15,
  locked: 16,
  environmentInvalid: 17,
  interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * An expected failure: bad input, a refused resume, a missing session. The CLI prints its message
 * (never a stack trace) and exits with its code. Bugs stay plain Errors and keep their stack.
 */
export class AcodeError extends Error {
  override readonly name = 'AcodeError';
  constructor(
    message: string,
    readonly exitCode: ExitCode = ExitCode.failure,
    /** Stable code such as ACODE-RESUME-002, shown before the message. */
    readonly code?: string,
  ) {
    super(message);
  }
}

/** True for errors a user can act on; false for bugs. */
export function isAcodeError(error: unknown): error is AcodeError {
  return error instanceof AcodeError;
}
