import { Box, Text, useInput } from 'ink';
import { stepTitle } from '../../engine/step-id.js';
import TextInput from 'ink-text-input';
import { useRef, useState } from 'react';
import { useStore } from 'zustand';
import { useTerminalSize } from '../browser/use-terminal-size.js';
import { approvalPanelRows } from './live-rows.js';
import { useRowsBelow } from './below-lines.js';
import type { RunStore } from '../../state/run-store.js';
import { approvalBindings as b, approvalEditBindings, hints, matches, rejectBindings } from '../keys/bindings.js';

/** An approval step waiting for this person: the prompt, what to decide on, and approve / edit / reject. */
export function ApprovalPanel({ store }: { store: RunStore }) {
  const approval = useStore(store, (s) => s.approval);
  // The pattern's own name for the step (a workflow task "1" is not "step 2").
  const title = useStore(store, (s) => (s.approval ? (s.steps.find((step) => step.id === s.approval?.step)?.title ?? stepTitle(s.approval.step)) : ''));
  const [editing, showEditor] = useState(false);
  // Read by the key handler like `rejecting`: 'e' then 'a' typed at once must edit, never approve.
  const editingNow = useRef(false);
  const setEditing = (value: boolean) => {
    editingNow.current = value;
    showEditor(value);
  };
  const [confirmingReject, showRejectQuestion] = useState(false);
  // Read by the key handler, which may still be the last render's when the next key arrives.
  const rejecting = useRef(false);
  const setConfirmingReject = (value: boolean) => {
    rejecting.current = value;
    showRejectQuestion(value);
  };
  const [draft, setDraft] = useState('');
  // Text and Enter typed fast are handled in one tick: Enter must see the text, not the last render's.
  const latest = useRef('');
  const edit = (value: string) => {
    latest.current = value;
    setDraft(value);
  };
  const submit = (text = latest.current) => {
    if (!text.trim()) return;
    setEditing(false);
    store.getState().answerApproval({ decision: 'edited', response: text.trim() });
  };
  useInput(
    (input, key) => {
      if (editingNow.current) {
        if (key.escape) setEditing(false);
        // Typed before the editor showed (this handler is an older render's): the text is the response's start.
        else if (!editing && key.return) submit();
        else if (!editing && input && !key.ctrl && !key.meta) edit(latest.current + input);
        return;
      }
      const s = store.getState();
      if (rejecting.current) {
        if (matches(rejectBindings['reject.yes'], input, key)) {
          setConfirmingReject(false);
          s.answerApproval({ decision: 'rejected' });
        } else if (matches(rejectBindings['reject.no'], input, key)) setConfirmingReject(false);
        return;
      }
      if (matches(b['approval.approve'], input, key)) s.answerApproval({ decision: 'approved' });
      else if (matches(b['approval.reject'], input, key)) setConfirmingReject(true);
      else if (matches(b['approval.edit'], input, key)) {
        edit('');
        setEditing(true);
      }
    },
    { isActive: approval !== null },
  );
  const { columns, rows } = useTerminalSize();
  const lanes = useStore(store, (s) => s.pattern !== 'chain');
  const below = useRowsBelow(store, columns);
  if (!approval) return null;
  const lines = approval.context ? approval.context.split('\n') : [];
  // What the person decides on, as much as fits: a panel taller than the terminal cleared it every frame.
  const contextLines = approvalPanelRows(rows, columns, approval.prompt, approval.context, lanes, below).context;
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="magenta" paddingX={1}>
      <Text bold color="magenta">
        approval needed · {title}
      </Text>
      <Text>{approval.prompt}</Text>
      {lines.slice(0, contextLines).map((line, i) => (
        <Text key={i} dimColor wrap="truncate-end">
          {line || ' '}
        </Text>
      ))}
      {lines.length > contextLines ? <Text dimColor>… {lines.length - contextLines} more lines</Text> : null}
      {editing ? (
        <Box flexDirection="column">
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
          <Text dimColor>{hints(approvalEditBindings)}</Text>
        </Box>
      ) : confirmingReject ? (
        <Text>
          <Text color="red">Reject cancels the session. Reject? </Text>
          <Text dimColor>{hints(rejectBindings)}</Text>
        </Text>
      ) : (
        <Text dimColor>
          {b['approval.approve'].label} (records "{approval.defaultResponse}") · {b['approval.edit'].label} · {b['approval.reject'].label}
        </Text>
      )}
    </Box>
  );
}
