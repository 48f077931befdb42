import { readFileSync } from 'node:fs';
import { upgradeCheckpoint } from './checkpoint-upgrade.js';
import { join } from 'node:path';
import type { Checkpoint } from '../engine/session-progress.js';
import { rolledForward } from './log-tail.js';

/** The part of a session the browser's details pane shows. */
export interface SessionPeek {
  checkpoint: Pick<Checkpoint, 'status' | 'steps_done' | 'stop_reason' | 'error' | 'last_response_preview'>;
  /** The agent of each step, in order. */
  agents: string[];
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`${path} ${error instanceof SyntaxError ? 'is not valid JSON' : 'cannot be read'}`, { cause: error });
  }
}

/** A JSON object (not null, not a scalar): the structural checks of files read without a schema. */
export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * Reads one session for display only, with structural checks instead of the full schema: the
 * browser shows details on every selection change and must not load the validator to draw its
 * first frame. Resume still validates everything (`SessionStore.open`).
 */
export function peekSession(dir: string): SessionPeek {
  const record = readJson(join(dir, 'session.json'));
  const cp = isObject(record) ? record.checkpoint : undefined;
  if (!isObject(cp) || typeof cp.status !== 'string' || typeof (cp.steps_done ?? cp.next_step) !== 'number' || typeof cp.last_response_preview !== 'string') {
    throw new Error(`${join(dir, 'session.json')} does not match the session format`);
  }
  const spec = readJson(join(dir, 'spec.json'));
  const steps = isObject(spec) && isObject(spec.pattern) && isObject(spec.pattern.config) ? spec.pattern.config.steps : undefined;
  // An agent step names its agent; an approval step (type: approval / hitl) is shown as "approval".
  const label = (step: unknown) => (isObject(step) && typeof step.agent === 'string' ? step.agent : isObject(step) && typeof step.type === 'string' ? 'approval' : undefined);
  const agents = Array.isArray(steps) ? steps.map(label) : [];
  if (!Array.isArray(steps) || agents.some((agent) => agent === undefined)) {
    throw new Error(`${join(dir, 'spec.json')} is not a valid spec`);
  }
  return { checkpoint: shownCheckpoint(dir, cp), agents: agents as string[] };
}

/** The snapshot (checked as peekSession checks it), rolled forward over the log past it when the session is running: it is written lazily. */
function shownCheckpoint(dir: string, raw: Record<string, unknown>): SessionPeek['checkpoint'] {
  let cp = raw;
  try {
    if (raw.status === 'running' && typeof raw.last_event_id === 'number') cp = rolledForward(dir, upgradeCheckpoint(raw) as Checkpoint) as unknown as Record<string, unknown>;
  } catch {
    // A snapshot without the fields replay needs: shown as it is.
  }
  return {
    status: cp.status as Checkpoint['status'],
    // `next_step`: written before step ids (session schema 1), the completed chain steps.
    steps_done: (cp.steps_done ?? cp.next_step) as number,
    stop_reason: typeof cp.stop_reason === 'string' ? (cp.stop_reason as Checkpoint['stop_reason']) : null,
    error: typeof cp.error === 'string' ? cp.error : null,
    last_response_preview: cp.last_response_preview as string,
  };
}
