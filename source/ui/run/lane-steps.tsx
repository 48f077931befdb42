import { Box, Static, Text } from 'ink';
import { patternWords } from '../../engine/patterns/pattern-for.js';
import { useStore } from 'zustand';
import type { RunStore, StepView } from '../../state/run-store.js';
import { useTerminalSize } from '../browser/use-terminal-size.js';
import { stepColor, stepGlyph } from '../theme.js';
import { Header } from './run-header.js';
import { stepName } from '../../engine/step-names.js';
import { finishedLanes, lanesOf, liveLanes, type Lane } from './run-lanes.js';
import { StepRow } from './step-row.js';
import { approvalPanelRows, fewestLaneLines, laneStreamRows } from './live-rows.js';
import { useRowsBelow } from './below-lines.js';
import { approvalPanelText } from './approval-text.js';
import { LatestStream } from './stream-tail.js';
import { plural } from '../../human-units.js';

/** A finished lane lists its skipped steps one by one up to this many; more are only counted. */
const skippedListed = 3;

/** "✓ branch web · 3/3 done · 1 skipped": a lane's glyph, name and counts (the spinner is its first running row's). */
function LaneHeader({ lane }: { lane: Lane }) {
  const { counts } = lane;
  const status = counts.failed ? 'failed' : counts.running ? 'running' : counts.waiting ? 'waiting' : lane.finished ? 'done' : 'pending';
  const extra = [
    // A fork's steps taken from its source are reused, not skipped.
    counts.skipped ? `${counts.skipped} ${lane.steps.some((step) => step.reused) ? 'reused' : 'skipped'}` : '',
    counts.running ? `${counts.running} running` : '',
    counts.waiting ? `${counts.waiting} waiting` : '',
  ].filter(Boolean);
  // One row, cut at the terminal's width: a long branch name wrapped inside a shrunk box, mangled, and
  // grew the live area past its budget.
  return (
    <Text wrap="truncate-end">
      <Text color={stepColor[status]}>{status === 'running' ? '▸' : stepGlyph[status]}</Text> <Text bold={!lane.finished}>{lane.label}</Text>
      <Text dimColor>
        {' '}
        · {counts.done + counts.skipped}/{lane.steps.length} done{extra.map((text) => ` · ${text}`).join('')}
      </Text>
      {counts.failed ? <Text color="red"> · {counts.failed} failed</Text> : null}
    </Text>
  );
}

/** A lane's rows below its header, names aligned; `live`: in the live area, each keeps to one row. */
function LaneRows({ pattern, lane, rows, live = false }: { pattern: string; lane: Lane; rows: readonly StepView[]; live?: boolean }) {
  const width = Math.max(0, ...lane.steps.map((step) => stepName(pattern, step.id).length));
  // One spinner a lane: its first running row's; the others show the running glyph.
  const spinning = rows.find((step) => step.status === 'running');
  return (
    <>
      {rows.map((step) => (
        <StepRow key={step.id} step={step} name={stepName(pattern, step.id)} nameWidth={width} indent={2} live={live} spinner={step === spinning} />
      ))}
    </>
  );
}

/** "3 more running, 1 waiting": the steps under way a lane has no room for ("more" when some are shown). */
function hiddenUnderWay({ running, waiting }: { running: number; waiting: number }, someShown: boolean): string {
  const counts = [running ? ['running', running] : null, waiting ? ['waiting', waiting] : null].filter((count) => count !== null);
  return counts.map(([what, n], i) => `${n} ${i === 0 && someShown ? 'more ' : ''}${what}`).join(', ');
}

/** A lane of one step outside every group (a reduce) is just its row. */
const single = (lane: Lane) => lane.steps.length === 1 && lane.steps[0]!.group === null;

function FinishedLane({ pattern, lane }: { pattern: string; lane: Lane }) {
  if (single(lane)) return <StepRow step={lane.steps[0]!} name={stepName(pattern, lane.steps[0]!.id)} />;
  const rows = lane.steps.filter((step) => step.status !== 'skipped' || lane.counts.skipped <= skippedListed);
  return (
    <Box flexDirection="column">
      <LaneHeader lane={lane} />
      <LaneRows pattern={pattern} lane={lane} rows={rows} />
    </Box>
  );
}

type StaticItem = { key: string; kind: 'header' } | { key: string; kind: 'lane'; lane: Lane };

/**
 * Steps of a pattern with lanes (workflow levels, parallel branches): a lane prints into <Static>
 * once it has finished, in the order lanes finish; the lanes still running stay below, each with
 * its counts, a spinner on its first running step and ● on the others running at once, fitted to
 * the terminal's height.
 */
export function LaneSteps({ store }: { store: RunStore }) {
  const steps = useStore(store, (s) => s.steps);
  const pattern = useStore(store, (s) => s.pattern);
  const started = useStore(store, (s) => s.phase !== 'starting');
  const { columns, rows } = useTerminalSize();
  const below = useRowsBelow(store, columns);
  const approvalLines = useStore(store, (s) => {
    const panel = approvalPanelText(s);
    return panel ? approvalPanelRows(rows, columns, panel, true, below).total : 0;
  });
  const streaming = useStore(store, (s) => s.latestStream !== null);
  const lanes = lanesOf(steps, pattern);
  const items: StaticItem[] = started ? [{ key: 'header', kind: 'header' }, ...finishedLanes(lanes).map((lane): StaticItem => ({ key: `lane-${lane.key}`, kind: 'lane', lane }))] : [];
  const streamed = laneStreamRows(rows, approvalLines, streaming, below);
  const live = liveLanes(lanes, Math.max(fewestLaneLines, rows - 1 - below - approvalLines - (streamed > 0 ? streamed + 2 : 0)));
  const [one, many] = patternWords(pattern).lane;
  return (
    <>
      <Static items={items}>{(item) => (item.kind === 'header' ? <Header key={item.key} store={store} /> : <FinishedLane key={item.key} pattern={pattern} lane={item.lane} />)}</Static>
      <Box flexDirection="column">
        {live.map((entry) =>
          entry.kind === 'more' ? (
            <Text key="more" dimColor wrap="truncate-end">
              … {entry.lanes} more {entry.lanes === 1 ? one : many} ({plural(entry.steps, 'step')}{entry.running ? `, ${entry.running} running` : ''})
            </Text>
          ) : single(entry.lane) ? (
            <StepRow key={entry.lane.key} step={entry.lane.steps[0]!} name={stepName(pattern, entry.lane.steps[0]!.id)} />
          ) : (
            <Box key={entry.lane.key} flexDirection="column">
              <LaneHeader lane={entry.lane} />
              <LaneRows pattern={pattern} lane={entry.lane} rows={entry.rows} live />
              {entry.moreActive.running + entry.moreActive.waiting > 0 ? <Text dimColor wrap="truncate-end">    … {hiddenUnderWay(entry.moreActive, entry.rows.length > 0)}</Text> : null}
              {entry.morePending > 0 ? <Text dimColor wrap="truncate-end">    … {entry.morePending} more pending</Text> : null}
            </Box>
          ),
        )}
        <LatestStream store={store} rows={streamed} />
      </Box>
    </>
  );
}
