import type { Pattern } from './pattern.js';
import { isNumbered } from './patterns/pattern-for.js';
import type { SessionProgress } from './session-progress.js';
import type { StepId } from './step-id.js';
import { stepIdOfName, stepName } from './step-names.js';

/** What a fork reuses of its source: completed steps that do not depend on the step run again. */
export type ForkPlan = { ok: true; from: StepId | undefined; reuse: StepId[] } | { ok: false; message: string };

/**
 * Resolves `--from-step`: a step's name as every view shows it (engine/step-names.ts): a chain's
 * 1-based number, `web/2`, a task id. Without it, the fork runs again from the
 * first unfinished step. The step run again must be able to start: what it waits for is reused.
 */
export function planFork(pattern: Pattern, progress: SessionProgress, fromStep: string | undefined, sessionId: string): ForkPlan {
  const chain = isNumbered(pattern.type);
  const from = fromStep === undefined ? pattern.firstUnfinished(progress) : stepIdOfName(pattern.type, fromStep);
  if (from === undefined) return { ok: true, from, reuse: pattern.shape(progress).filter((node) => progress.completed[node.id]).map((node) => node.id) };
  const reuse = pattern.reusableBefore(from, progress);
  const waitsFor = pattern.shape(progress).find((node) => node.id === from)?.after ?? [];
  if (reuse && waitsFor.every((id) => reuse.includes(id))) return { ok: true, from, reuse };
  if (chain) {
    // Only an unbroken run of completed steps from the start can be reused.
    const shape = pattern.shape(progress);
    let completed = 0;
    while (completed < shape.length && progress.completed[shape[completed]!.id]) completed++;
    // The first unfinished step may run again; past the last step there is none to offer.
    const last = Math.min(completed + 1, shape.length);
    return { ok: false, message: `--from-step must be between 1 and ${last}: session ${sessionId} has ${completed} completed step${completed === 1 ? '' : 's'}` };
  }
  const startable = pattern.shape(progress).filter((node) => node.after.every((id) => progress.completed[id])).map((node) => node.id);
  return { ok: false, message: `--from-step ${fromStep}: ${reuse ? 'the steps it waits for have not completed' : 'no such step'} in session ${sessionId}; give a step whose prerequisites completed: ${startable.map((id) => stepName(pattern.type, id)).join(', ')}` };
}
