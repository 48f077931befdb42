import type { SessionStatus } from '../engine/events.js';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { sessionStatuses } from '../session/status-words.js';

/** `--status S`: one of the session statuses, or a usage error naming them. */
export function checkStatus(status: string | undefined): SessionStatus | undefined {
  if (status === undefined || status === '') return undefined;
  if (!(sessionStatuses as readonly string[]).includes(status)) throw new AcodeError(`--status '${status}' is not a session status; use one of: ${sessionStatuses.join(', ')}`, ExitCode.usage);
  return status as SessionStatus;
}

/** `--limit N`: a whole number of at least 1, or a usage error saying so. */
export function parseLimit(limit: string | undefined): number | undefined {
  if (limit === undefined) return undefined;
  if (!/^\d+$/.test(limit.trim()) || Number(limit) < 1) throw new AcodeError(`--limit '${limit}' is not a number of sessions; give a whole number of at least 1 (--limit 20)`, ExitCode.usage);
  return Number(limit);
}

/** `--remote` with `--resumable` or `--here`: refused (those judge this machine's locks and folders, the other lists the store). */
export function checkRemoteListing(flags: { resumable: boolean; here?: boolean }): void {
  if (flags.resumable) throw new AcodeError(`--resumable judges this machine's locks, and --remote lists the team store: use one of them`, ExitCode.usage);
  if (flags.here) throw new AcodeError(`--here lists the sessions that ran in this folder on this machine, and --remote the team store's from every machine: use one of them`, ExitCode.usage);
}
