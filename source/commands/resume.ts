import { existsSync } from 'node:fs';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { terminalStatuses } from '../engine/events.js';
import { replayEvents } from '../engine/session-progress.js';
import { createProvider } from '../providers/create-provider.js';
import type { SessionHandle, SessionStore } from '../store/session-store.js';
import { openStore, type CommandContext } from './command-context.js';
import { runSession } from './run-session.js';

export interface ResumeFlags {
  json: boolean;
}

function findSession(store: SessionStore, id: string | undefined): SessionHandle {
  if (id) return store.open(id);
  const latest = store.list().find((row) => !terminalStatuses.includes(row.status));
  if (!latest) {
    throw new AcodeError(`no resumable session in ${store.home}; start one with 'acode run <spec.yaml>' or list them with 'acode sessions list'`, ExitCode.noResumableSession, 'ACODE-RESUME-001');
  }
  return store.open(latest.session_id);
}

/** `acode resume [<id>]`: replays the session's event log and continues after its last finished step. */
export async function resumeCommand(ctx: CommandContext, id: string | undefined, flags: ResumeFlags): Promise<ExitCode> {
  const handle = findSession(openStore(ctx), id);
  const record = handle.record;
  const status = record.checkpoint.status;
  if (terminalStatuses.includes(status)) {
    throw new AcodeError(
      `session ${record.session_id} is ${status}: there is nothing to resume. Run the workflow again with 'acode run ${record.spec_path}', or see it with 'acode sessions show ${record.session_id}'`,
      ExitCode.terminalState,
      'ACODE-RESUME-002',
    );
  }
  if (!existsSync(record.cwd)) {
    throw new AcodeError(`session ${record.session_id} ran in ${record.cwd}, which no longer exists; restore the directory, then resume`, ExitCode.environmentInvalid, 'ACODE-RESUME-004');
  }
  const spec = handle.spec();
  const progress = replayEvents(handle.events(), spec.pattern.config.steps.length);
  if (progress.last_event_id < record.checkpoint.last_event_id) {
    throw new AcodeError(
      `session ${record.session_id}: its event log ends at event ${progress.last_event_id} but its checkpoint is at ${record.checkpoint.last_event_id}; the log was truncated, so resuming could redo finished work. Inspect ${handle.dir}`,
      ExitCode.failure,
      'ACODE-RESUME-006',
    );
  }
  const provider = createProvider(spec, ctx.env);
  const journal = handle.openJournal();
  return runSession(ctx, {
    sessionId: record.session_id,
    spec,
    variables: record.variables,
    provider,
    journal,
    progress,
    cwd: record.cwd,
    saved: true,
    json: flags.json,
    close: () => journal.close(),
  });
}
