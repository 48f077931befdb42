import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ProviderError, StepAbortedError } from '../engine/stop-errors.js';
import { redact } from '../secrets/redactor.js';
import type { JsonPost, ModelResponse } from './post-json.js';

/** An event or a line this long without an end is no model answer: the stream is refused, not buffered on. */
const maxEventChars = 16 * 1024 * 1024;

/**
 * Reads a server-sent-events answer to its end, handing each event to `onEvent` (which may throw
 * to end the stream, e.g. on an `error` event). A connection that breaks midway is network trouble
 * (a retryable ProviderError) and a stop of the run is StepAbortedError: the caller then has only
 * part of an answer, which it must drop. Chunks are taken straight off the socket's 'data' events:
 * no promise or web stream per chunk, which is most of what reading a stream costs.
 */
export function readEventStream(response: ModelResponse, post: Pick<JsonPost, 'url' | 'signal'>, onEvent: (event: EventSourceMessage) => void): Promise<void> {
  let refused: Error | undefined;
  const parser = createParser({
    onEvent,
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') refused = new ProviderError(`${post.url} sent a stream event over ${maxEventChars} characters long; the answer was dropped`, true);
    },
    maxBufferSize: maxEventChars,
  });
  const body = response.body;
  const decoder = new StringDecoder('utf8');
  return new Promise((resolve, reject) => {
    let settled = false;
    const broke = (cause: string) =>
      new ProviderError(redact(`connection to ${post.url} broke while the answer streamed (${cause}); the part received was dropped`), true, { detail: 'connection broke' });
    const settle = (error?: unknown) => {
      if (settled) return;
      settled = true;
      body.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      if (error === undefined) return resolve();
      // Ends the connection when a handler threw: nothing more of this answer is wanted.
      body.destroy();
      reject(error instanceof Error ? error : new Error(String(error)));
    };
    const onData = (chunk: Buffer) => {
      try {
        parser.feed(decoder.write(chunk));
        if (refused) settle(refused);
      } catch (error) {
        settle(error);
      }
    };
    const onEnd = () => {
      try {
        parser.feed(decoder.end());
        settle(refused);
      } catch (error) {
        settle(error);
      }
    };
    const onError = (error: Error & { code?: string }) => settle(post.signal.aborted ? new StepAbortedError() : broke(error.code ?? error.message));
    // Closed without 'end' or 'error' (destroyed from outside): the answer is incomplete all the same.
    const onClose = () => settle(post.signal.aborted ? new StepAbortedError() : broke('connection closed'));
    body.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/** The stream ended without its closing event: what arrived is only part of an answer. */
export function truncatedStream(url: string, missing: string): ProviderError {
  return new ProviderError(`the answer stream from ${url} ended before ${missing}; the part received was dropped`, true, { detail: 'stream cut short' });
}
