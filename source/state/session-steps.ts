import { fenceEvents } from '../engine/epoch-fence.js';
import { openCommand, type AgentCliRun } from '../engine/agent-cli.js';
import { isNumbered } from '../engine/patterns/pattern-for.js';
import type { Hue } from '../session/status-words.js';
import type { EngineEvent } from '../engine/events.js';
import type { Pattern, ShapeNode } from '../engine/pattern.js';
import { applyEvent, compareEvents, initialProgress, type Checkpoint, type SessionProgress } from '../engine/session-progress.js';
import type { StepId } from '../engine/step-id.js';
import { StepResultsFold, type StepResult } from './step-results.js';

/** Where a stored session's step stands, as the browser and `sessions show` tell it. */
export type StepState = 'done' | 'failed' | 'running' | 'interrupted' | 'awaiting' | 'pending';

/** Each state's glyph, colour (a chalk / Ink name and its ANSI code) and words: defined once for every view. */
export const stepStateStyle: Record<StepState, { glyph: string; color: Hue; word: string }> = {
  done: { glyph: '✓', color: 'green', word: 'done' },
  failed: { glyph: '✗', color: 'red', word: 'failed' },
  running: { glyph: '●', color: 'cyan', word: 'running' },
  interrupted: { glyph: '✗', color: 'yellow', word: 'interrupted' },
  awaiting: { glyph: '◆', color: 'magenta', word: 'awaiting approval' },
  pending: { glyph: '○', color: 'gray', word: 'pending' },
};

/** One step of a stored session. */
export interface SessionStep {
  id: StepId;
  /** Position in the pattern's shape. */
  index: number;
  /** Its agent, or "approval". */
  agent: string;
  /** "step 2", "task overview", "web step 1". */
  title: string;
  /** Its lane (a DAG level, a parallel branch); null in a chain and for a reduce. */
  group: string | null;
  status: StepState;
  /** The attempt under way or last made; 0 when it never started. */
  attempt: number;
  /** What the pattern read of its answer (ShapeNode.detail): a route chosen, a score, a subtask. */
  detail?: string;
}

/** A session's progress as its log tells it, with the steps whose last attempt failed or was rejected. */
export interface ReplayedSteps {
  progress: SessionProgress;
  /** Steps whose latest attempt ended in step_failed, an approval the person rejected, the step a session failed on. */
  failed: Set<StepId>;
  /** What each step that ran did: tokens, time, attempts, response, tool calls. */
  results: Map<StepId, StepResult>;
}

/** Replays the log the way a resume does (superseded holders fenced out, (ts, id) order). */
/** What `aliveUntil` reads of a session's lock (store/session-lock.ts LockState): its owner's last heartbeat. */
export type LockLook = { kind: 'free' } | { kind: 'held' | 'stale'; owner: { heartbeat_at: string } };

/**
 * Until when the process that ran a session's open steps was known alive, for their time: now, while
 * a live process holds its lock; a stale lock's last heartbeat, when that process was killed; unknown
 * without a lock. `sessions show` and the browser's step view both count a killed step's time by it.
 */
export function aliveUntil(lock: LockLook, now = Date.now()): number | undefined {
  if (lock.kind === 'held') return now;
  return lock.kind === 'stale' ? Date.parse(lock.owner.heartbeat_at) : undefined;
}

export function replaySteps(events: readonly EngineEvent[], stepsTotal: number, aliveUntil?: number): ReplayedSteps {
  const progress = initialProgress(stepsTotal);
  const failed = new Set<StepId>();
  const fold = new StepResultsFold();
  for (const event of fenceEvents(events).sort(compareEvents)) {
    applyEvent(progress, event);
    fold.apply(event);
    if (event.type === 'step_started') failed.delete(event.step);
    else if (event.type === 'step_failed' || (event.type === 'approval_answered' && event.decision === 'rejected')) failed.add(event.step);
    // The step a session ended on (a template or budget failure stops it before it starts).
    else if ((event.type === 'session_failed' || event.type === 'session_cancelled') && event.step !== null) failed.add(event.step);
  }
  return { progress, failed, results: fold.finish(aliveUntil) };
}

function stateOf(node: ShapeNode, replayed: ReplayedSteps, live: boolean): StepState {
  const { progress, failed } = replayed;
  if (progress.completed[node.id]) return 'done';
  if (progress.awaiting.includes(node.id)) return 'awaiting';
  // A failed session's failing step failed; any other started step stopped short of its end.
  if (failed.has(node.id) && (progress.status === 'failed' || progress.status === 'cancelled')) return 'failed';
  if (!progress.in_progress[node.id]) return 'pending';
  return live && (progress.status === 'running' || progress.status === 'awaiting_approval') ? 'running' : 'interrupted';
}

/**
 * Every step of a stored session, in shape order, with where it stands: done, running (its
 * process holds the lock), interrupted (started, and nobody runs it now), failed, awaiting an
 * approval, or pending. `live`: a live process holds the session's lock.
 */
export function sessionSteps(pattern: Pattern, replayed: ReplayedSteps, live: boolean): SessionStep[] {
  return pattern.shape(replayed.progress).map((node, index) => ({
    id: node.id,
    index,
    agent: node.label,
    title: node.title,
    group: node.group,
    status: stateOf(node, replayed, live),
    attempt: replayed.progress.in_progress[node.id]?.attempt ?? 0,
    ...detailOf(node.detail, replayed.progress.agent_cli[node.id]),
  }));
}

/** What views say of a step beside its state: the pattern's reading of its answer, and an agent CLI's conversation with the command that opens it. */
function detailOf(detail: string | undefined, cli: AgentCliRun | undefined): { detail?: string } {
  const conversation = cli?.session_id ? `${cli.cli} conversation ${cli.session_id} (open it: ${openCommand(cli.cli, cli.session_id)})` : undefined;
  const text = [detail, conversation].filter(Boolean).join(' · ');
  return text ? { detail: text } : {};
}

/** What a checkpoint says of a chain: how many steps completed, and the steps under way and asked, by id. */
export type ChainCheckpoint = Pick<Checkpoint, 'status' | 'steps_done'> & { in_progress?: readonly StepId[]; awaiting?: readonly StepId[] };

/**
 * A chain's steps from its checkpoint, which for a chain says all the log does (its steps complete in
 * order: the first `steps_done` are done) — read when the checkpoint is current, so a long session
 * costs no more than a short one, and when the log trails it (written by hand, or by a tool that
 * filled only the checkpoint). Other patterns cannot say from a count which steps it means: their
 * steps stay pending.
 */
export function checkpointSteps(pattern: Pattern, checkpoint: ChainCheckpoint, live: boolean): SessionStep[] {
  const chain = isNumbered(pattern.type);
  const done = chain ? checkpoint.steps_done : 0;
  const stopped = checkpoint.status === 'failed' || checkpoint.status === 'cancelled';
  const runs = checkpoint.status === 'running' || checkpoint.status === 'awaiting_approval';
  return pattern.shape(initialProgress(0)).map((node, index) => {
    let status: StepState = 'pending';
    if (index < done) status = 'done';
    else if (!chain) status = 'pending';
    else if (checkpoint.awaiting?.includes(node.id) || (index === done && checkpoint.status === 'awaiting_approval')) status = 'awaiting';
    else if (index === done && stopped) status = 'failed';
    else if (checkpoint.in_progress?.includes(node.id) || (index === done && checkpoint.status === 'running')) status = live && runs ? 'running' : 'interrupted';
    return { id: node.id, index, agent: node.label, title: node.title, group: node.group, status, attempt: 0 };
  });
}
