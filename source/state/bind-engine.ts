import type { ApprovalAnswer, ApprovalDesk } from '../engine/approval.js';
import type { ChainExecutor } from '../engine/chain-executor.js';
import { createRunStore, type RunStore } from './run-store.js';

/**
 * The only bridge from engine events to store actions, and from store actions to the engine —
 * including the approval desk through which the engine asks the person at the run view.
 */
export function bindEngine(executor: ChainExecutor, init: { sessionId: string; workflowName: string; agents: readonly string[] }): { store: RunStore; approvals: ApprovalDesk; unbind: () => void } {
  let pending: ((answer: ApprovalAnswer | undefined) => void) | undefined;
  const settle = (answer: ApprovalAnswer | undefined) => {
    pending?.(answer);
    pending = undefined;
  };
  const store = createRunStore({
    ...init,
    controls: { cancel: () => executor.cancel(), retryNow: () => executor.retryNow(), abandonRetry: () => executor.abandonRetry(), answerApproval: settle },
  });
  const approvals: ApprovalDesk = {
    answer: (request, signal) =>
      new Promise((resolve) => {
        pending = resolve;
        store.getState().askApproval(request);
        signal.addEventListener('abort', () => {
          store.getState().askApproval(null);
          settle(undefined);
        }, { once: true });
      }),
  };
  const unbind = executor.subscribe((event) => store.getState().apply(event));
  return { store, approvals, unbind };
}
