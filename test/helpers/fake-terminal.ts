import { EventEmitter } from 'node:events';

/**
 * A terminal's two ends as Ink and the browser's full screen use them: stdout of a given size
 * recording every write, stdin that is a TTY, records its raw mode and never has input.
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
  const stdin = Object.assign(new EventEmitter(), {
    isTTY: true,
    raw: false,
    setRawMode: (on: boolean) => ((stdin.raw = on), stdin),
    setEncoding: () => stdin,
    ref: () => stdin,
    unref: () => stdin,
    read: () => null,
  });
  return { stdout, stdin };
}
