import type { ApprovalAnswer, ApprovalDesk, ApprovalRequest } from '../engine/approval.js';
import type { SessionExecutor } from '../engine/session-executor.js';
import type { StepNotice } from '../engine/step-notice.js';
import { createRunStore, type RunStore, type RunStoreInit } from './run-store.js';

/**
 * Hands notices on in batches: those that arrive together — the pieces of one read of a stream —
 * reach the store at once, in one update, without a timer of their own (each timer is one more
 * wake-up of the process; the stream's reads are spaced already, event-stream.ts). `flush` hands
 * over what waits (before the step's own events).
 */
function batched(deliver: (notices: StepNotice[]) => void): { push(notice: StepNotice): void; flush(): void; stop(): void } {
  let waiting: StepNotice[] = [];
  let queued = false;
  const flush = () => {
    queued = false;
    if (waiting.length === 0) return;
    const notices = waiting;
    waiting = [];
    deliver(notices);
  };
  return {
    push(notice) {
      waiting.push(notice);
      if (queued) return;
      queued = true;
      queueMicrotask(flush);
    },
    flush,
    stop() {
      waiting = [];
    },
  };
}

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
  const notices = batched((batch) => store.getState().streamed(batch));
  const stopNotices = executor.onNotice((notice) => notices.push(notice));
  const unsubscribe = executor.subscribe((event) => {
    // What a step streamed comes before what ended it.
    notices.flush();
    store.getState().apply(event);
  });
  const unbind = () => {
    unsubscribe();
    stopNotices();
    notices.stop();
  };
  return { store, approvals, unbind };
}
