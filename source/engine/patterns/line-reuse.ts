import type { ShapeNode } from '../pattern.js';
import type { SessionProgress } from '../session-progress.js';
import type { StepId } from '../step-id.js';

// A module of its own, with type imports only: engine/pattern.ts imports the plug-in registry, so a
// plug-in importing it back at run time would meet a registry not built yet.

/**
 * What a fork that runs `from` again may reuse in a pattern whose steps form one line, each reading
 * (or chosen by) the ones before it: the completed steps before `from`. Undefined when `from` is not in the shape.
 */
export function reusableInLine(shape: readonly ShapeNode[], from: StepId, progress: SessionProgress): StepId[] | undefined {
  const at = shape.findIndex((node) => node.id === from);
  return at < 0 ? undefined : shape.slice(0, at).map((node) => node.id).filter((id) => progress.completed[id]);
}
