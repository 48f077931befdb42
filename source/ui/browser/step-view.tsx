import { Box } from 'ink';
import { useEffect } from 'react';
import { useStore } from 'zustand';
import type { StepViewStore } from '../../state/step-view-store.js';
import { LineText, Lines } from './line-text.js';
import { stepViewChrome, stepViewFooter, stepViewLines } from './step-view-lines.js';

/** A session's steps over the whole screen (Enter on a session); Enter on a step shows its response. */
export function StepView({ store, columns, rows }: { store: StepViewStore; columns: number; rows: number }) {
  const view = useStore(store);
  useEffect(() => store.getState().setSize(rows - stepViewChrome, columns), [store, rows, columns]);
  return (
    <Box flexDirection="column" width={columns} height={rows}>
      <Lines lines={stepViewLines(view, columns)} width={columns} />
      <Box flexGrow={1} />
      <LineText line={stepViewFooter(view.detail !== null)} />
    </Box>
  );
}
