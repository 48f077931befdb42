import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ProviderError, StepAbortedError } from '../engine/stop-errors.js';
import { redact } from '../secrets/redactor.js';
import type { JsonPost } from './post-json.js';

/** An event or a line this long without an end is no model answer: the stream is refused, not buffered on. */
const maxEventChars = 16 * 1024 * 1024;

/**
 * Reads a server-sent-events answer to its end, handing each event to `onEvent` (which may throw
 * to end the stream, e.g. on an `error` event). A connection that breaks midway is network trouble
 * (a retryable ProviderError) and a stop of the run is StepAbortedError: the caller then has only
 * part of an answer, which it must drop.
 */
export async function readEventStream(response: Response, post: Pick<JsonPost, 'url' | 'signal'>, onEvent: (event: EventSourceMessage) => void): Promise<void> {
  let refused: Error | undefined;
  const parser = createParser({
    onEvent,
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') refused = new ProviderError(`${post.url} sent a stream event over ${maxEventChars} characters long; the answer was dropped`, true);
    },
    maxBufferSize: maxEventChars,
  });
  const body = response.body;
  if (!body) throw new ProviderError(`${post.url} answered a stream without a body`, true);
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (post.signal.aborted) throw new StepAbortedError();
        const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
        throw new ProviderError(redact(`connection to ${post.url} broke while the answer streamed (${cause}); the part received was dropped`), true, { detail: 'connection broke' });
      }
      if (chunk.done) break;
      parser.feed(decoder.decode(chunk.value, { stream: true }));
      if (refused) throw refused;
    }
    parser.feed(decoder.decode());
  } finally {
    // Ends the connection when a handler threw: nothing more of this answer is wanted.
    reader.cancel().catch(() => undefined);
  }
}

/** The stream ended without its closing event: what arrived is only part of an answer. */
export function truncatedStream(url: string, missing: string): ProviderError {
  return new ProviderError(`the answer stream from ${url} ended before ${missing}; the part received was dropped`, true, { detail: 'stream cut short' });
}
