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
 * The exit code each stable error code has (DESIGN.md §1), wherever it is raised: one error, one
 * exit code — ACODE-RESUME-005 had exited 1 for an id prefix that matched nothing and 2 for a name.
 */
export const errorCodeExits = {
  'ACODE-RESUME-001': ExitCode.noResumableSession,
  'ACODE-RESUME-002': ExitCode.terminalState,
  'ACODE-RESUME-003': ExitCode.locked,
  'ACODE-RESUME-004': ExitCode.environmentInvalid,
  'ACODE-RESUME-005': ExitCode.failure,
  'ACODE-RESUME-006': ExitCode.failure,
  'ACODE-RESUME-007': ExitCode.failure,
  /** A usage, spec or config error: bad arguments, a spec or setting that does not check; nothing was run. */
  'ACODE-USAGE-001': ExitCode.usage,
  /** Any other expected failure: a disk full or read-only, a team store out of reach, a lost lock. */
  'ACODE-FAILURE-001': ExitCode.failure,
  /** Stopped by Ctrl+C or SIGTERM. */
  'ACODE-INTERRUPTED-001': ExitCode.interrupted,
} as const satisfies Record<string, ExitCode>;
export type ErrorCode = keyof typeof errorCodeExits;

/**
 * The code an error raised without one goes by (`--json` names it): each exit code's own, so a script
 * reading `error.code` always finds one — a misuse had printed `"code":null`.
 */
const exitCodeErrors = {
  [ExitCode.ok]: 'ACODE-FAILURE-001',
  [ExitCode.failure]: 'ACODE-FAILURE-001',
  [ExitCode.usage]: 'ACODE-USAGE-001',
  [ExitCode.noResumableSession]: 'ACODE-RESUME-001',
  [ExitCode.terminalState]: 'ACODE-RESUME-002',
  [ExitCode.locked]: 'ACODE-RESUME-003',
  [ExitCode.environmentInvalid]: 'ACODE-RESUME-004',
  [ExitCode.interrupted]: 'ACODE-INTERRUPTED-001',
} as const satisfies Record<ExitCode, ErrorCode>;

/** The stable code of an expected failure with this exit code and no code of its own. */
export function errorCodeFor(exit: ExitCode): ErrorCode {
  return exitCodeErrors[exit];
}

/**
 * An expected failure: bad input, a refused resume, a missing session. The CLI prints its message
 * (never a stack trace) and exits with its code. Bugs stay plain Errors and keep their stack.
 */
export class AcodeError extends Error {
  override readonly name = 'AcodeError';
  readonly exitCode: ExitCode;
  constructor(
    message: string,
    exitCode: ExitCode = ExitCode.failure,
    /** Stable code such as ACODE-RESUME-002, shown before the message; it decides the exit code. */
    readonly code?: ErrorCode,
  ) {
    super(message);
    this.exitCode = code === undefined ? exitCode : errorCodeExits[code];
  }

  /** The code `--json` names: the one given, else its exit code's (ACODE-USAGE-001 for a misuse). Plain lines show only a given one. */
  get errorCode(): ErrorCode {
    return this.code ?? errorCodeFor(this.exitCode);
  }
}

/** True for errors a user can act on; false for bugs. */
export function isAcodeError(error: unknown): error is AcodeError {
  return error instanceof AcodeError;
}
