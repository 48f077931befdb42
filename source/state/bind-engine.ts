import type { ChainExecutor } from '../engine/chain-executor.js';
import { createRunStore, type RunStore } from './run-store.js';

/** The only bridge from engine events to store actions, and from store actions to the engine. */
export function bindEngine(executor: ChainExecutor, init: { sessionId: string; workflowName: string; agents: readonly string[] }): { store: RunStore; unbind: () => void } {
  const store = createRunStore({ ...init, controls: { cancel: () => executor.cancel(), retryNow: () => executor.retryNow(), abandonRetry: () => executor.abandonRetry() } });
  const unbind = executor.subscribe((event) => store.getState().apply(event));
  return { store, unbind };
}
