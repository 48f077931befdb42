import type { KeyEvent } from '../keys/chunk-keys.js';
import { graphemeEndAfter, graphemeStartBefore } from '../keys/graphemes.js';

/** The approval editor's text and its cursor: a UTF-16 offset, always between two graphemes. */
export interface ResponseDraft {
  text: string;
  cursor: number;
}

export const emptyDraft: ResponseDraft = { text: '', cursor: 0 };

/**
 * The draft after one editing key: text typed (a run of it at once), Backspace, ← →, Home, End;
 * the same draft for any other key. Backspace deletes the whole grapheme before the cursor, so the
 * text never holds half an emoji: what is recorded is what was shown. Ink reports the Backspace
 * key (0x7f) as `delete`, the same as the Delete key: both delete backwards, as ink-text-input did.
 */
export function editDraft(draft: ResponseDraft, input: string, key: KeyEvent): ResponseDraft {
  const { text, cursor } = draft;
  if (key.backspace || key.delete) {
    const start = graphemeStartBefore(text, cursor);
    return start === cursor ? draft : { text: text.slice(0, start) + text.slice(cursor), cursor: start };
  }
  if (key.leftArrow) return { text, cursor: graphemeStartBefore(text, cursor) };
  if (key.rightArrow) return { text, cursor: graphemeEndAfter(text, cursor) };
  if (key.home) return { text, cursor: 0 };
  if (key.end) return { text, cursor: text.length };
  if (!input || key.ctrl || key.meta) return draft;
  return { text: text.slice(0, cursor) + input + text.slice(cursor), cursor: cursor + input.length };
}

/** The draft as drawn: the text, with the grapheme under the cursor inverted (a space past its end). */
export function draftParts(draft: ResponseDraft): { before: string; under: string; after: string } {
  const end = graphemeEndAfter(draft.text, draft.cursor);
  return { before: draft.text.slice(0, draft.cursor), under: draft.text.slice(draft.cursor, end) || ' ', after: draft.text.slice(end) };
}
