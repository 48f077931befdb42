import { EventEmitter } from 'node:events';

/**
 * A terminal's two ends as Ink and the browser's full screen use them: stdout of a given size
 * recording every write, stdin that is a TTY, records its raw mode and has what `type` gives it.
 */
export function fakeTerminal(columns: number, rows: number) {
  const writes: string[] = [];
  const stdout = Object.assign(new EventEmitter(), {
    columns,
    rows,
    writes,
    write: (text: string) => writes.push(text) > 0,
    /** Everything written, in order. */
    written: () => writes.join(''),
  });
  const typed: string[] = [];
  const stdin = Object.assign(new EventEmitter(), {
    isTTY: true,
    raw: false,
    setRawMode: (on: boolean) => ((stdin.raw = on), stdin),
    setEncoding: () => stdin,
    ref: () => stdin,
    unref: () => stdin,
    read: () => typed.shift() ?? null,
    /** Keys typed: one chunk, read as Ink reads a terminal's (on 'readable'). */
    type: (chunk: string) => {
      typed.push(chunk);
      stdin.emit('readable');
    },
  });
  return { stdout, stdin };
}
