import { Box, Static, Text } from 'ink';
import { useStore } from 'zustand';
import type { RunStore, StepView } from '../../state/run-store.js';
import { Header } from './run-header.js';
import { StepRow } from './step-row.js';
import { useTerminalSize } from '../browser/use-terminal-size.js';
import { approvalPanelRows, chainLiveRows } from './live-rows.js';
import { useRowsBelow } from './below-lines.js';
import { approvalPanelText } from './approval-text.js';
import { active } from './run-lanes.js';
import { StreamTail } from './stream-tail.js';

/** The running step: its row and what its model says. */
function RunningStep({ store, step, tail }: { store: RunStore; step: StepView; tail: number }) {
  return (
    <Box flexDirection="column">
      <StepRow step={step} />
      <StreamTail store={store} step={step.id} indent={6} rows={tail} />
    </Box>
  );
}

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

/** A chain's steps: finished ones scroll into <Static> in order; the running one and the next few stay below. */
export function ChainSteps({ store }: { store: RunStore }) {
  const steps = useStore(store, (s) => s.steps);
  const skipped = useStore(store, (s) => s.skipped);
  const forkOf = useStore(store, (s) => s.forkOf);
  // <Static> prints each item once: wait for session_started so the header knows what it shows.
  const started = useStore(store, (s) => s.phase !== 'starting');
  const streaming = useStore(store, (s) => Object.keys(s.streams).length > 0);
  const { columns, rows } = useTerminalSize();
  const below = useRowsBelow(store, columns);
  const approvalRows = useStore(store, (s) => {
    const panel = approvalPanelText(s);
    return panel ? approvalPanelRows(rows, columns, panel, false, below).total : 0;
  });
  const underWay = steps.filter(active);
  const pending = steps.filter((s) => s.status === 'pending');
  const live = chainLiveRows(rows, underWay.length, pending.length, streaming, approvalRows, below);
  return (
    <>
      <Static items={started ? staticItems(steps, skipped) : []}>
        {(item) =>
          item.kind === 'header' ? (
            <Header key={item.key} store={store} />
          ) : item.kind === 'skipped' ? (
            <Text key={item.key} color="blueBright">
              ↷ steps 1–{item.count} {forkOf === null ? 'skipped (completed earlier)' : `reused from ${forkOf}`}
            </Text>
          ) : (
            <StepRow key={item.key} step={item.step} />
          )
        }
      </Static>
      <Box flexDirection="column">
        {underWay.map((step) => (step.status === 'running' ? <RunningStep key={step.index} store={store} step={step} tail={live.tail} /> : <StepRow key={step.index} step={step} />))}
        {pending.slice(0, live.pending).map((step) => (
          <StepRow key={step.index} step={step} />
        ))}
        {live.more ? <Text dimColor wrap="truncate-end">  … {pending.length - live.pending} more pending</Text> : null}
      </Box>
    </>
  );
}
