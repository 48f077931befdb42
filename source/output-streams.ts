import type { Writable } from 'node:stream';

/**
 * stdout and stderr of a CLI whose output may go to a pipe. On Linux a pipe is written
 * asynchronously: what the reader has not taken yet waits in the stream's buffer, and
 * process.exit() throws it away. A reader that closes early (`| head`) makes every later write
 * fail with EPIPE, which is how such a reader says "enough", not an error of ours.
 */

/** Ignores EPIPE on `stream` (the reader left; later writes are dropped); reports other write errors once through `onError`. */
export function endQuietlyOnClosedPipe(stream: NodeJS.WriteStream, onError: (error: NodeJS.ErrnoException) => void): void {
  let reported = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || reported) return;
    reported = true;
    onError(error);
  });
}

/** Resolves once everything written to `stream` so far has been handed to the OS (or the stream failed). */
export function drained(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || stream.writableLength === 0) return Promise.resolve();
  // Writes complete in order: the callback of an empty write runs after every earlier one.
  return new Promise((resolve) => stream.write('', () => resolve()));
}

const backlogs = new WeakMap<object, Promise<void>>();

/**
 * While `stream` holds more than its high-water mark that its reader has not taken (a write returned
 * false, and 'drain' has not come), a promise that settles once it drains — or closes or fails: a
 * reader that left (EPIPE) takes nothing more, and nothing waits for it. Undefined otherwise. One
 * promise per backlog, however many ask.
 */
export function backlog(stream: NodeJS.WritableStream): Promise<void> | undefined {
  const writable = stream as Partial<Writable> & NodeJS.WritableStream;
  if (writable.destroyed || writable.writableEnded || writable.errored || !writable.writableNeedDrain) return undefined;
  let waiting = backlogs.get(stream);
  if (waiting) return waiting;
  waiting = new Promise<void>((resolve) => {
    const done = () => {
      stream.off('drain', done).off('close', done).off('error', done);
      backlogs.delete(stream);
      resolve();
    };
    stream.on('drain', done).on('close', done).on('error', done);
  });
  backlogs.set(stream, waiting);
  return waiting;
}
