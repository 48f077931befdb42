import { Box, Text, useInput } from 'ink';
import { stepTitle } from '../../engine/step-id.js';
import TextInput from 'ink-text-input';
import { useRef, useState } from 'react';
import { useStore } from 'zustand';
import type { RunStore } from '../../state/run-store.js';
import { approvalBindings as b, matches } from '../keys/bindings.js';

/** Context lines shown of what the person decides on; the rest is counted. */
const contextLines = 14;

/** An approval step waiting for this person: the prompt, what to decide on, and approve / edit / reject. */
export function ApprovalPanel({ store }: { store: RunStore }) {
  const approval = useStore(store, (s) => s.approval);
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState('');
  // Text and Enter typed fast are handled in one tick: Enter must see the text, not the last render's.
  const latest = useRef('');
  const edit = (value: string) => {
    latest.current = value;
    setDraft(value);
  };
  useInput(
    (input, key) => {
      if (editing) {
        if (key.escape) setEditing(false);
        return;
      }
      const s = store.getState();
      if (matches(b['approval.approve'], input, key)) s.answerApproval({ decision: 'approved' });
      else if (matches(b['approval.reject'], input, key)) s.answerApproval({ decision: 'rejected' });
      else if (matches(b['approval.edit'], input, key)) {
        edit('');
        setEditing(true);
      }
    },
    { isActive: approval !== null },
  );
  if (!approval) return null;
  const submit = (text = latest.current) => {
    if (!text.trim()) return;
    setEditing(false);
    store.getState().answerApproval({ decision: 'edited', response: text.trim() });
  };
  const lines = approval.context ? approval.context.split('\n') : [];
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="magenta" paddingX={1}>
      <Text bold color="magenta">
        approval needed · {stepTitle(approval.step)}
      </Text>
      <Text>{approval.prompt}</Text>
      {lines.slice(0, contextLines).map((line, i) => (
        <Text key={i} dimColor wrap="truncate-end">
          {line || ' '}
        </Text>
      ))}
      {lines.length > contextLines ? <Text dimColor>… {lines.length - contextLines} more lines</Text> : null}
      {editing ? (
        <Box>
          <Text color="cyan">response › </Text>
          <TextInput
            value={draft}
            onChange={(value) => {
              // Typed while the app was busy, the text and its Enter arrive as one chunk.
              const enter = value.search(/[\r\n]/);
              if (enter >= 0) submit(value.slice(0, enter));
              else edit(value);
            }}
            onSubmit={() => submit()}
          />
        </Box>
      ) : (
        <Text dimColor>
          {b['approval.approve'].label} (records "{approval.defaultResponse}") · {b['approval.edit'].label} · {b['approval.reject'].label}
        </Text>
      )}
    </Box>
  );
}
