import type { EngineEvent } from './events.js';
import { artifactsStep, chainStepId } from './step-id.js';

/** A step as logs before step ids wrote it: the chain index, -1 for artifacts. */
function upgradeStep(step: unknown): unknown {
  if (typeof step !== 'number') return step;
  return step < 0 ? artifactsStep : chainStepId(step);
}

/**
 * Reads an event written by any acode version as today's shape: logs from before step ids (schema
 * 1) named steps by chain index, and planned one in-progress step; early builds left out the
 * session's tokens, a reset's usage and a completion's idempotency key. Logs are never rewritten — an
 * old session's files stay as they were, so an older acode can still read them — each read
 * upgrades in memory. Idempotent: an event already in today's shape comes back unchanged.
 */
export function upgradeEvent(event: EngineEvent): EngineEvent {
  const raw = event as unknown as Record<string, unknown>;
  if (typeof raw.step === 'number') raw.step = upgradeStep(raw.step);
  // Early 0.1 builds wrote these without fields added since: what they did not count was nothing.
  if (raw.type === 'session_started' && raw.tokens === undefined) raw.tokens = { input: 0, output: 0 };
  if (raw.type === 'conversation_reset' && raw.usage === undefined) raw.usage = { input: 0, output: 0 };
  // Named in messages only (a step completed twice): the attempt it completed says as much.
  if (raw.type === 'step_completed' && raw.idempotency_key === undefined) raw.idempotency_key = `${String(raw.step)}:${String(raw.attempt)}`;
  if (raw.type === 'resume_planned' && !Array.isArray(raw.in_progress)) {
    const running = raw.in_progress as Record<string, unknown> | null;
    raw.in_progress = running ? [{ ...running, step: upgradeStep(running.step) }] : [];
  }
  return event;
}
