import { Box, Text, useInput } from 'ink';
import SelectInput from 'ink-select-input';
import { useStore } from 'zustand';
import type { ChangesStore } from '../../state/changes-store.js';
import type { TornDecision, TornWriteStore } from '../../state/torn-write-store.js';
import { DiffView } from '../changes/diff-view.js';
import { diffBindings as d, hints, matches, tornBindings } from '../keys/bindings.js';

type Choice = TornDecision | 'view';

const choices: { label: string; value: Choice }[] = [
  { label: 'Roll back and retry — restore the file from its snapshot, then run the step again', value: 'rollback' },
  { label: 'Retry over it — leave the torn file for the step to overwrite', value: 'retry' },
  { label: 'View the torn file — what the write left, against the snapshot', value: 'view' },
  { label: 'Abort — the session stays exactly as it was', value: 'abort' },
];

const answered: Record<TornDecision, { color: string; text: string }> = {
  rollback: { color: 'green', text: '→ rolling the torn write back, then retrying the step' },
  retry: { color: 'yellow', text: '→ retrying over the torn write' },
  abort: { color: 'red', text: '→ aborted: the session is unchanged' },
};

/** Roll back and retry · retry over it · view the torn file · abort: asked when resume.in_progress_strategy is prompt. */
export function TornWritePrompt({ store, files }: { store: TornWriteStore; files: ChangesStore }) {
  const mode = useStore(store, (s) => s.mode);
  const decision = useStore(store, (s) => s.decision);
  const highlighted = useStore(store, (s) => s.highlighted);
  const torn = useStore(files, (s) => s.changes);
  const sessionId = useStore(files, (s) => s.sessionId);
  useInput((input, key) => {
    const s = store.getState();
    if (s.decision) return;
    if (matches(tornBindings['torn.abort'], input, key)) return s.decide('abort');
    if (s.mode === 'choose') {
      // Read from the store as each key comes: keys that arrive together (Down Down Enter) act one
      // after another. ink-select-input's own keys read the choice of its last render — three Downs
      // moved one row, and Enter took the choice from before them: a rollback asked as a view.
      const moveBy = (step: number) => s.highlight((s.highlighted + step + choices.length) % choices.length);
      const take = (index: number) => {
        const choice = choices[index]!.value;
        if (choice === 'view') s.view();
        else s.decide(choice);
      };
      // A choice's number takes it at once, as ink-select-input's own keys did.
      const numbered = /^[1-9]$/.test(input) && !key.ctrl ? Number(input) - 1 : -1;
      if (matches(tornBindings['torn.up'], input, key)) moveBy(-1);
      else if (matches(tornBindings['torn.down'], input, key)) moveBy(1);
      else if (matches(tornBindings['torn.select'], input, key)) take(s.highlighted);
      else if (numbered >= 0 && numbered < choices.length) {
        s.highlight(numbered);
        take(numbered);
      }
      return;
    }
    const diff = files.getState();
    if (matches(d['diff.back'], input, key)) s.back();
    else if (matches(d['diff.prev'], input, key)) diff.switchFile(-1);
    else if (matches(d['diff.next'], input, key)) diff.switchFile(1);
    else if (matches(d['diff.up'], input, key)) diff.scrollBy(-1);
    else if (matches(d['diff.down'], input, key)) diff.scrollBy(1);
    else if (matches(d['diff.pageUp'], input, key)) diff.scrollBy(-diff.pageSize);
    else if (matches(d['diff.pageDown'], input, key)) diff.scrollBy(diff.pageSize);
  });
  // The answer replaces the question, so the scrollback keeps one line, not the whole screen.
  if (decision) return <Text color={answered[decision].color}>{answered[decision].text}</Text>;
  if (mode === 'view') return <DiffView store={files} />;
  return (
    <Box flexDirection="column">
      <Text>
        <Text bold color="yellow">
          ⚠ {torn.length} write{torn.length === 1 ? ' was' : 's were'} torn
        </Text>{' '}
        when session <Text color="magenta">{sessionId}</Text> stopped
      </Text>
      <Box flexDirection="column" marginY={1}>
        {torn.map((file) => (
          <Text key={file.path}>
            {'  '}
            <Text bold>{file.shown}</Text> <Text dimColor>{file.lastSeen}</Text>
          </Text>
        ))}
      </Box>
      {/* Drawn by ink-select-input at the store's choice (drawn again as it moves); the keys are read above. */}
      <SelectInput<Choice> key={highlighted} items={choices} initialIndex={highlighted} isFocused={false} />
      <Text dimColor>{hints(tornBindings)}</Text>
    </Box>
  );
}
