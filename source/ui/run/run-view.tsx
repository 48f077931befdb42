import { Box, Text, useInput, useStdin } from 'ink';
import { useStore } from 'zustand';
import type { RunStore } from '../../state/run-store.js';
import { matches, runBindings } from '../keys/bindings.js';
import { ApprovalPanel } from './approval-panel.js';
import { Pieces, RetryCountdown } from './retry-countdown.js';
import { stoppingText, summaryPieces } from './below-lines.js';
import { RunSpend } from './run-spend.js';
import { ChainSteps } from './chain-steps.js';
import { LaneSteps } from './lane-steps.js';
import { approvalHint } from '../../state/approval-hint.js';
import { TickProvider, useTick } from './run-tick.js';
import { headline, statusWords } from '../../session/status-words.js';

function Summary({ store }: { store: RunStore }) {
  const steps = useStore(store, (s) => s.steps);
  const skipped = useStore(store, (s) => s.skipped);
  const tokens = useStore(store, (s) => s.tokens);
  const pattern = useStore(store, (s) => s.pattern);
  const startedAt = useStore(store, (s) => s.startedAt);
  const finishedAt = useStore(store, (s) => s.finishedAt);
  const { now } = useTick();
  return <Pieces pieces={summaryPieces({ steps, skipped, tokens, pattern }, (finishedAt ?? now) - startedAt)} />;
}

function Outcome({ store }: { store: RunStore }) {
  const phase = useStore(store, (s) => s.phase);
  const message = useStore(store, (s) => s.message);
  const sessionId = useStore(store, (s) => s.sessionId);
  const artifacts = useStore(store, (s) => s.artifacts);
  switch (phase) {
    case 'starting':
    case 'running':
      return <Text dimColor>{runBindings['run.pause'].label}</Text>;
    case 'stopping':
      return <Text color="yellow">{stoppingText(message)}</Text>;
    case 'completed':
      return (
        <Box flexDirection="column">
          <Text color={statusWords.completed.hue}>{headline('completed')}</Text>
          {artifacts.map((path) => (
            <Text key={path} dimColor>  wrote {path}</Text>
          ))}
        </Box>
      );
    case 'paused':
      return (
        <Box flexDirection="column">
          <Text color={statusWords.paused.hue}>
            {headline('paused')}: {message}
          </Text>
          <Text>
            Resume with: <Text bold>acode resume {sessionId}</Text>
          </Text>
        </Box>
      );
    case 'failed':
      return (
        <Text color={statusWords.failed.hue}>
          {headline('failed')}: {message}
        </Text>
      );
    case 'cancelled':
      return (
        <Text color={statusWords.cancelled.hue}>
          {headline('cancelled')}: {message}
        </Text>
      );
    case 'awaiting_approval':
      return <AwaitingApproval store={store} />;
  }
}

function AwaitingApproval({ store }: { store: RunStore }) {
  const asking = useStore(store, (s) => s.approval !== null);
  const sessionId = useStore(store, (s) => s.sessionId);
  if (asking) return <Text dimColor>{runBindings['run.pause'].label} (the session keeps waiting for its answer)</Text>;
  return (
    <Box flexDirection="column">
      <Text color={statusWords.awaiting_approval.hue}>{headline('awaiting_approval')}</Text>
      <Text>{approvalHint(sessionId)}</Text>
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
        <Outcome store={store} />
      </Box>
    </TickProvider>
  );
}
