import { Box, Static, Text, useInput, useStdin } from 'ink';
import { useStore } from 'zustand';
import type { RunStore, StepView } from '../../state/run-store.js';
import { formatCount, formatDuration } from '../../human-units.js';
import { matches, runBindings } from '../keys/bindings.js';
import { ApprovalPanel } from './approval-panel.js';
import { RetryCountdown } from './retry-countdown.js';
import { StepRow } from './step-row.js';
import { approvalHint } from '../../state/approval-hint.js';
import { useElapsed } from './use-elapsed.js';
import { headline, statusWords } from '../../session/status-words.js';

/** Pending steps shown below the running one; the rest are counted. */
const pendingShown = 3;
/** Up to this many skipped steps are listed one by one; more collapse into one line. */
const skippedListed = 5;

type StaticItem = { key: string; kind: 'header' } | { key: string; kind: 'skipped'; count: number } | { key: string; kind: 'step'; step: StepView };

function staticItems(steps: readonly StepView[], skipped: number): StaticItem[] {
  const items: StaticItem[] = [{ key: 'header', kind: 'header' }];
  if (skipped > skippedListed) items.push({ key: 'skipped', kind: 'skipped', count: skipped });
  for (const step of steps) {
    const listedSkip = step.status === 'skipped' && skipped <= skippedListed;
    if (listedSkip || step.status === 'done' || step.status === 'failed') items.push({ key: `step-${step.index}`, kind: 'step', step });
  }
  return items;
}

function Header({ store }: { store: RunStore }) {
  const sessionId = useStore(store, (s) => s.sessionId);
  const workflowName = useStore(store, (s) => s.workflowName);
  const total = useStore(store, (s) => s.steps.length);
  const resumed = useStore(store, (s) => s.resumed);
  return (
    <Box gap={1}>
      <Text bold color="cyan">acode</Text>
      <Text bold>{workflowName}</Text>
      <Text dimColor>· {total} steps · session</Text>
      <Text color="magenta">{sessionId}</Text>
      {resumed ? <Text color="yellow">(resumed)</Text> : null}
    </Box>
  );
}

function Summary({ store }: { store: RunStore }) {
  const steps = useStore(store, (s) => s.steps);
  const skipped = useStore(store, (s) => s.skipped);
  const tokens = useStore(store, (s) => s.tokens);
  const startedAt = useStore(store, (s) => s.startedAt);
  const finishedAt = useStore(store, (s) => s.finishedAt);
  const elapsed = useElapsed(startedAt, finishedAt);
  const done = steps.filter((s) => s.status === 'done' || s.status === 'skipped').length;
  return (
    <Text>
      <Text bold>{done}/{steps.length} done</Text>
      <Text dimColor> · </Text>
      <Text color="blueBright">{skipped} skipped (completed earlier)</Text>
      <Text dimColor> · </Text>
      {steps.length - done} remaining
      <Text dimColor> · </Text>
      tokens {formatCount(tokens.input)} in / {formatCount(tokens.output)} out
      <Text dimColor> · </Text>
      {formatDuration(elapsed)}
    </Text>
  );
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
      return <Text color="yellow">{message} (Ctrl+C again to quit now)</Text>;
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

/** The live run view: finished steps scroll into <Static>; the running step and summary stay below. */
export function RunView({ store, onForceQuit }: { store: RunStore; onForceQuit: () => void }) {
  const steps = useStore(store, (s) => s.steps);
  const skipped = useStore(store, (s) => s.skipped);
  // <Static> prints each item once: wait for session_started so the header knows what it shows.
  const started = useStore(store, (s) => s.phase !== 'starting');
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

  const active = steps.filter((s) => s.status === 'running' || s.status === 'waiting');
  const pending = steps.filter((s) => s.status === 'pending');
  return (
    <>
      <Static items={started ? staticItems(steps, skipped) : []}>
        {(item) =>
          item.kind === 'header' ? (
            <Header key={item.key} store={store} />
          ) : item.kind === 'skipped' ? (
            <Text key={item.key} color="blueBright">
              ↷ steps 1–{item.count} skipped (completed earlier)
            </Text>
          ) : (
            <StepRow key={item.key} step={item.step} />
          )
        }
      </Static>
      <Box flexDirection="column">
        {active.map((step) => (
          <StepRow key={step.index} step={step} />
        ))}
        {pending.slice(0, pendingShown).map((step) => (
          <StepRow key={step.index} step={step} />
        ))}
        {pending.length > pendingShown ? <Text dimColor>  … {pending.length - pendingShown} more pending</Text> : null}
        <RetryCountdown store={store} />
        <ApprovalPanel store={store} />
        <Box marginTop={1}>
          <Summary store={store} />
        </Box>
        <Outcome store={store} />
      </Box>
    </>
  );
}
