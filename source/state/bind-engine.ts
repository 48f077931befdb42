import type { ApprovalAnswer, ApprovalDesk, ApprovalRequest } from '../engine/approval.js';
import type { SessionExecutor } from '../engine/session-executor.js';
import { createRunStore, type RunStore, type RunStoreInit } from './run-store.js';

/**
 * The only bridge from engine events to store actions, and from store actions to the engine —
 * including the approval desk through which the engine asks the person at the run view.
 */
export function bindEngine(executor: SessionExecutor, init: Omit<RunStoreInit, 'controls'>): { store: RunStore; approvals: ApprovalDesk; unbind: () => void } {
  // Branches running at once may each ask: the person answers one question at a time, in the order asked.
  const queue: { request: ApprovalRequest; resolve: (answer: ApprovalAnswer | undefined) => void }[] = [];
  const settle = (answer: ApprovalAnswer | undefined) => {
    queue.shift()?.resolve(answer);
    store.getState().askApproval(queue[0]?.request ?? null);
  };
  const store = createRunStore({
    ...init,
    controls: { cancel: () => executor.cancel(), retryNow: () => executor.retryNow(), abandonRetry: () => executor.abandonRetry(), answerApproval: settle },
  });
  const approvals: ApprovalDesk = {
    answer: (request, signal) =>
      new Promise((resolve) => {
        const entry = { request, resolve };
        queue.push(entry);
        if (queue.length === 1) store.getState().askApproval(request);
        signal.addEventListener('abort', () => {
          const at = queue.indexOf(entry);
          if (at === 0) settle(undefined);
          else if (at > 0) queue.splice(at, 1)[0]!.resolve(undefined);
        }, { once: true });
      }),
  };
  const unbind = executor.subscribe((event) => store.getState().apply(event));
  return { store, approvals, unbind };
}
