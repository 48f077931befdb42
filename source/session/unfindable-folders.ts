import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { redactedMark } from '../secrets/redactor.js';

/**
 * Refuses to resume or fork a session whose working folder or artifacts' folder was stored without
 * part of its name: it held a key of the run (env.secrets, the provider key), which acode never
 * stores (secrets/event-redaction.ts). Run on, the session would work in, and write into, a new
 * folder literally named `[REDACTED]`.
 */
export function refuseUnfindableFolders(record: { session_id: string; cwd: string; artifacts_dir?: string }, command: 'resume' | 'fork'): void {
  const folders = [
    ['ran in', record.cwd],
    ['wrote its artifacts to', record.artifacts_dir],
  ] as const;
  for (const [what, folder] of folders) {
    if (folder === undefined || !folder.includes(redactedMark)) continue;
    throw new AcodeError(
      `session ${record.session_id} ${what} ${folder}: that folder's name held a key of the run (env.secrets or the provider key), which acode never stores, so the ${command} cannot find it again; run the spec anew from that folder`,
      ExitCode.environmentInvalid,
      'ACODE-RESUME-004',
    );
  }
}
