import { isDeepStrictEqual } from 'node:util';
import { epochOf, fenceEvents } from './epoch-fence.js';
import type { EngineEvent } from './events.js';
import { applyEvent, compareEvents, initialProgress, toCheckpoint, type Checkpoint, type SessionProgress } from './session-progress.js';
import { stepTitle, type StepId } from './step-id.js';

/** Why a session's history cannot be trusted to resume from. */
export class ReplayError extends Error {
  override readonly name = 'ReplayError';
  constructor(
    message: string,
    /** nondeterministic → ACODE-RESUME-006; idempotency_conflict → ACODE-RESUME-007. */
    readonly kind: 'nondeterministic' | 'idempotency_conflict',
  ) {
    super(message);
  }
}

function firstDifference(a: Checkpoint, b: Checkpoint): string {
  for (const key of Object.keys(a) as (keyof Checkpoint)[]) {
    if (!isDeepStrictEqual(a[key], b[key])) return `${key}: replay has ${JSON.stringify(a[key])}, checkpoint has ${JSON.stringify(b[key])}`;
  }
  return 'unknown field';
}

/** Idempotency keys must be unique per attempt, and a step completes once. */
function checkIdempotency(ordered: readonly EngineEvent[]): void {
  const started = new Set<string>();
  const completed = new Map<StepId, string>();
  for (const event of ordered) {
    if (event.type === 'step_started') {
      if (started.has(event.idempotency_key)) throw new ReplayError(`attempt ${event.idempotency_key} was started twice (event ${event.event_id}): two processes drove this session`, 'idempotency_conflict');
      started.add(event.idempotency_key);
    } else if (event.type === 'step_completed' || event.type === 'step_reused') {
      const key = event.type === 'step_completed' ? event.idempotency_key : `reused from ${event.from_session}`;
      const earlier = completed.get(event.step);
      if (earlier !== undefined) throw new ReplayError(`${stepTitle(event.step)} completed twice (${earlier}, then ${key} at event ${event.event_id})`, 'idempotency_conflict');
      completed.set(event.step, key);
    }
  }
}

/**
 * Rebuilds a session's progress from its event log, in (timestamp, event_id) order, and checks it:
 * event ids are unique, idempotency keys never repeat, and the replay up to the checkpoint's last
 * event equals the stored checkpoint. Events after it (a crash between log and checkpoint) roll forward.
 * Events of superseded lock holders are fenced out first (file order) and never count against the
 * session; a checkpoint one of them wrote after losing the lock is recognised by its epoch (lower
 * than the log's) and rebuilt from the log, which is the source of truth.
 */
export function recoverProgress(events: readonly EngineEvent[], checkpoint: Checkpoint): SessionProgress {
  const ordered = fenceEvents(events).sort(compareEvents);
  for (let i = 1; i < ordered.length; i++) {
    if (ordered[i]!.event_id <= ordered[i - 1]!.event_id) {
      throw new ReplayError(`event ${ordered[i]!.event_id} is out of order or repeated in the log (after event ${ordered[i - 1]!.event_id})`, 'nondeterministic');
    }
  }
  checkIdempotency(ordered);
  const progress = initialProgress(checkpoint.steps_total);
  let verified = checkpoint.last_event_id === 0;
  for (const event of ordered) {
    applyEvent(progress, event);
    if (event.event_id === checkpoint.last_event_id && epochOf(event) === checkpoint.epoch) {
      const replayed = toCheckpoint(progress);
      if (!isDeepStrictEqual(replayed, checkpoint)) {
        throw new ReplayError(`replaying the event log does not reproduce the checkpoint (${firstDifference(replayed, checkpoint)})`, 'nondeterministic');
      }
      verified = true;
    }
  }
  // Not in the kept history, but written under an epoch the log has since superseded: that holder's
  // snapshot of events that were fenced out. Lost events would leave the checkpoint ahead instead.
  if (!verified && checkpoint.epoch < progress.epoch) return progress;
  if (!verified) {
    throw new ReplayError(`the event log ends at event ${progress.last_event_id} but the checkpoint is at event ${checkpoint.last_event_id}: events were lost`, 'nondeterministic');
  }
  return progress;
}
