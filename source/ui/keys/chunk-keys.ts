import type { Key } from 'ink';

/** A key as the handlers here read it: what Ink reports, of which only `ctrl` is always said. */
export type KeyEvent = Pick<Key, 'ctrl'> & Partial<Key>;

/**
 * One character of a chunk as the key Ink would report for it alone. Ink parses a read of several
 * keys as one (typed while the app was busy, a key repeat, `tmux send-keys BSpace BSpace`): its
 * Backspaces, Enter and Ctrl keys come through as raw control characters in the text.
 */
function keyOf(char: string): [string, KeyEvent] {
  if (char === '\r' || char === '\n') return ['', { ctrl: false, return: true }];
  if (char === '\t') return ['', { ctrl: false, tab: true }];
  if (char === '\u007f' || char === '\b') return ['', { ctrl: false, backspace: true }];
  if (char === '\u001B') return ['', { ctrl: false, escape: true, meta: true }];
  const code = char.charCodeAt(0);
  if (code >= 1 && code <= 26) return [String.fromCharCode(code + 96), { ctrl: true }];
  return [char, { ctrl: false }];
}

/** A character no one types as text: it is a key (Enter, Backspace, Ctrl+…). */
const isControl = (char: string) => char < ' ' || char === '\u007f';

/**
 * The keys of a chunk, one at a time, as Ink would report each alone — except that while
 * `takesText()` holds (a search, an editor is open) a run of typed text comes as one key: one edit,
 * not one per letter. Lazy, so `takesText` is asked again after each key has acted.
 */
export function* keysOfChunk(input: string, takesText: () => boolean): Generator<[string, KeyEvent]> {
  const typed = [...input];
  for (let i = 0; i < typed.length; ) {
    if (takesText() && !isControl(typed[i]!)) {
      let end = i;
      while (end < typed.length && !isControl(typed[end]!)) end++;
      yield [typed.slice(i, end).join(''), { ctrl: false }];
      i = end;
    } else yield keyOf(typed[i++]!);
  }
}
