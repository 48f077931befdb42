import { Box, useInput, useStdin } from 'ink';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import type { RunStore } from '../../state/run-store.js';
import { matches, runBindings } from '../keys/bindings.js';
import { ApprovalPanel } from './approval-panel.js';
import { RetryCountdown } from './retry-countdown.js';
import { outcomeLines, summaryLine } from './below-lines.js';
import { LineText } from '../browser/line-text.js';
import { RunSpend } from './run-spend.js';
import { SyncStatus } from './sync-status.js';
import { ChainSteps } from './chain-steps.js';
import { LaneSteps } from './lane-steps.js';
import { TickProvider, useTick } from './run-tick.js';

function Summary({ store }: { store: RunStore }) {
  const steps = useStore(store, (s) => s.steps);
  const skipped = useStore(store, (s) => s.skipped);
  const forkOf = useStore(store, (s) => s.forkOf);
  const tokens = useStore(store, (s) => s.tokens);
  const pattern = useStore(store, (s) => s.pattern);
  const startedAt = useStore(store, (s) => s.startedAt);
  const finishedAt = useStore(store, (s) => s.finishedAt);
  const { now } = useTick();
  return <LineText line={summaryLine({ steps, skipped, forkOf, tokens, pattern }, (finishedAt ?? now) - startedAt)} wrap="wrap" />;
}

function Outcome({ store }: { store: RunStore }) {
  const lines = outcomeLines(useStore(store, useShallow((s) => ({ phase: s.phase, message: s.message, sessionId: s.sessionId, saved: s.saved, artifacts: s.artifacts, approval: s.approval }))));
  return (
    <Box flexDirection="column">
      {lines.map((line, i) => (
        <LineText key={i} line={line} wrap="wrap" />
      ))}
    </Box>
  );
}

/**
 * The live run view: finished steps (a chain) or finished lanes (workflow levels, parallel branches)
 * scroll into <Static>; what runs, the summary and the outcome stay below.
 */
export function RunView({ store, onForceQuit }: { store: RunStore; onForceQuit: () => void }) {
  const lanes = useStore(store, (s) => s.pattern !== 'chain');
  const { isRawModeSupported } = useStdin();
  useInput(
    (input, key) => {
      const s = store.getState();
      if (s.retry && matches(runBindings['run.retryNow'], input, key)) return s.retryNow();
      if (s.retry && matches(runBindings['run.abandon'], input, key)) return s.abandonRetry();
      if (!matches(runBindings['run.pause'], input, key)) return;
      if (s.phase === 'stopping') onForceQuit();
      else s.requestStop();
    },
    { isActive: isRawModeSupported === true },
  );
  const clock = useStore(store, (s) => s.clock);
  const live = useStore(store, (s) => s.finishedAt === undefined);
  return (
    <TickProvider clock={clock} live={live}>
      {lanes ? <LaneSteps store={store} /> : <ChainSteps store={store} />}
      <Box flexDirection="column">
        <RetryCountdown store={store} />
        <ApprovalPanel store={store} />
        <Box marginTop={1}>
          <Summary store={store} />
        </Box>
        <RunSpend store={store} />
        <SyncStatus store={store} />
        <Outcome store={store} />
      </Box>
    </TickProvider>
  );
}
