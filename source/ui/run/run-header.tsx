import { Text } from 'ink';
import { patternWords } from '../../engine/patterns/pattern-for.js';
import { useStore } from 'zustand';
import type { RunStore, StepView } from '../../state/run-store.js';
import { terminalText } from '../../printable-text.js';

/** "3 steps", "4 tasks in 3 levels", "5 steps in 2 branches, then reduce": the shape in a few words. */
export function shapeWords(steps: readonly Pick<StepView, 'group'>[], pattern: string): string {
  return patternWords(pattern).shapeWords(steps);
}

/** The first line of the run view: workflow, shape, session id, this process's pid, and whether it resumed (or forked). */
export function Header({ store }: { store: RunStore }) {
  const sessionId = useStore(store, (s) => s.sessionId);
  const workflowName = useStore(store, (s) => s.workflowName);
  const shape = useStore(store, (s) => shapeWords(s.steps, s.pattern));
  const resumed = useStore(store, (s) => s.resumed);
  const forkOf = useStore(store, (s) => s.forkOf);
  // One Text: in a narrow terminal it wraps as a line of words (a Box of Texts squeezed each one and
  // split the workflow's name and the session id mid-word).
  return (
    <Text>
      <Text bold color="cyan">
        acode
      </Text>{' '}
      <Text bold>{terminalText(workflowName)}</Text>
      <Text dimColor> · {shape} · session </Text>
      <Text color="magenta">{sessionId}</Text>
      {/* The pid the README's "kill -9 <pid>" names (test/e2e/readme-path.test.ts): this run, not every acode on the machine. */}
      <Text dimColor> · pid {process.pid}</Text>
      {forkOf !== null ? <Text color="yellow"> (fork of {forkOf})</Text> : resumed ? <Text color="yellow"> (resumed)</Text> : null}
    </Text>
  );
}
