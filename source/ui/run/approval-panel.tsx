import { Box, Text, useInput } from 'ink';
import { useMemo, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import { useTerminalSize } from '../browser/use-terminal-size.js';
import { approvalPanelRows } from './live-rows.js';
import { useRowsBelow } from './below-lines.js';
import type { RunStore } from '../../state/run-store.js';
import { approvalBindings as b, hints, matches, rejectBindings } from '../keys/bindings.js';
import { keysOfChunk, type KeyEvent } from '../keys/chunk-keys.js';
import { approvalPanelText, editKeys, rejectQuestion, responseLabel } from './approval-text.js';
import { draftParts, editDraft, emptyDraft, type ResponseDraft } from './response-draft.js';

/** An approval step waiting for this person: the prompt, what to decide on, and approve / edit / reject. */
export function ApprovalPanel({ store }: { store: RunStore }) {
  const asked = useStore(store, useShallow((s) => ({ approval: s.approval, approvalInput: s.approvalInput, pattern: s.pattern })));
  const { approval } = asked;
  const text = useMemo(() => approvalPanelText(asked), [asked]);
  const [editing, showEditor] = useState(false);
  // Read by the key handler like `rejecting`: 'e' then 'a' typed at once must edit, never approve.
  const editingNow = useRef(false);
  const setEditing = (value: boolean) => {
    editingNow.current = value;
    showEditor(value);
    // The live area counts the editor's rows from the store (chain-steps, lane-steps).
    store.getState().typeResponse(value ? latest.current.text : null);
  };
  const [confirmingReject, showRejectQuestion] = useState(false);
  // Read by the key handler, which may still be the last render's when the next key arrives.
  const rejecting = useRef(false);
  const setConfirmingReject = (value: boolean) => {
    rejecting.current = value;
    showRejectQuestion(value);
  };
  const [draft, setDraft] = useState(emptyDraft);
  // Text and Enter typed fast are handled in one tick: Enter must see the text, not the last render's.
  const latest = useRef(emptyDraft);
  const edit = (value: ResponseDraft) => {
    latest.current = value;
    setDraft(value);
    if (editingNow.current) store.getState().typeResponse(value.text);
  };
  const submit = () => {
    const { text } = latest.current;
    if (!text.trim()) return;
    setEditing(false);
    store.getState().answerApproval({ decision: 'edited', response: text.trim() });
  };
  /** One key: the editor's while it is open, else approve, edit, reject and the reject question's. */
  const onKey = (input: string, key: KeyEvent) => {
    if (editingNow.current) {
      if (key.escape) setEditing(false);
      else if (key.return) submit();
      else {
        const next = editDraft(latest.current, input, key);
        if (next !== latest.current) edit(next);
      }
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
      edit(emptyDraft);
      setEditing(true);
    }
  };
  useInput(
    (input, key) => {
      // Keys typed fast, pasted, repeated or typed while the app was busy arrive as one chunk ("ef", "ra",
      // "e" and a response and Enter, two Backspaces): each is taken in turn — 'e' then text edits, never
      // approves nor drops the text, and a Backspace deletes, never goes into the response as 0x7f.
      if (input.length < 2 || key.ctrl || key.meta) return onKey(input, key);
      // Once the chunk has answered the question, the rest of it is dropped: the next approval shows at
      // once (in this very tick), and a pasted "fix it\rand more" would have approved it with its "a".
      const asked = store.getState().approval;
      for (const [char, charKey] of keysOfChunk(input, () => editingNow.current)) {
        onKey(char, charKey);
        if (store.getState().approval !== asked) break;
      }
    },
    { isActive: approval !== null },
  );
  const { columns, rows } = useTerminalSize();
  const lanes = useStore(store, (s) => s.pattern !== 'chain');
  const below = useRowsBelow(store, columns);
  if (!approval || !text) return null;
  const lines = text.context ? text.context.split('\n') : [];
  // What the person decides on, as much as fits: a panel taller than the terminal cleared it every frame.
  const { context: contextLines, counted, border, input } = approvalPanelRows(rows, columns, text, lanes, below);
  return (
    // A terminal too short for the border has the panel without it: the title says what it is.
    <Box flexDirection="column" borderStyle={border ? 'round' : undefined} borderColor="magenta" paddingX={border ? 1 : 0}>
      <Text bold color="magenta">
        {text.title}
      </Text>
      <Text>{text.prompt}</Text>
      {lines.slice(0, contextLines).map((line, i) => (
        <Text key={i} dimColor wrap="truncate-end">
          {line || ' '}
        </Text>
      ))}
      {counted ? (
        <Text dimColor wrap="truncate-end">
          … {contextLines > 0 ? `${lines.length - contextLines} more lines` : `${lines.length} lines of context not shown`}
        </Text>
      ) : null}
      {editing ? (
        <Box flexDirection="column">
          {/* A response longer than the rows the terminal has for it shows its last rows, where the cursor is. */}
          <Box height={input.shown} overflow="hidden" flexDirection="column">
            <Box marginTop={input.shown - input.rows} flexShrink={0}>
              {/* The label keeps its width; the text wraps beside it (live-rows counts it so). */}
              <Box flexShrink={0}>
                <Text color="cyan">{responseLabel}</Text>
              </Box>
              <DraftText draft={draft} />
            </Box>
          </Box>
          <Text dimColor>{editKeys}</Text>
        </Box>
      ) : confirmingReject ? (
        <Text>
          <Text color="red">{rejectQuestion}</Text>
          <Text dimColor>{hints(rejectBindings)}</Text>
        </Text>
      ) : (
        <Text dimColor>{text.keys[0]}</Text>
      )}
    </Box>
  );
}

/** The response being typed, its cursor drawn as an inverted grapheme (a space at the end), as a text field's. */
function DraftText({ draft }: { draft: ResponseDraft }) {
  const { before, under, after } = draftParts(draft);
  return (
    <Text>
      {before}
      <Text inverse>{under}</Text>
      {after}
    </Text>
  );
}
