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
