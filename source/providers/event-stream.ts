import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { atNextBeat, beatMs } from '../engine/beat.js';
import type { CompletionDelta } from '../engine/provider.js';
import { ProviderError, StepAbortedError } from '../engine/stop-errors.js';
import { redact } from '../secrets/redactor.js';
import { keepAliveOnlyCode, networkCauseText, silentAnswerCode } from './network-failure.js';
import { answerTooLong, maxAnswerBytes, silentAnswerMs, type JsonPost, type ModelResponse } from './post-json.js';

/** An event or a line this long without an end is no model answer: the stream is refused, not buffered on. */
const maxEventChars = 16 * 1024 * 1024;

/**
 * Once a stream has said something, its socket rests after each read for `readRestBeats` beats of
 * the run view's tick (one timer, engine/beat.ts). Every read wakes the process and runs Node's
 * HTTP and stream machinery, which costs more CPU than the pieces it brings (~0.3 ms a read on a
 * small VM; a model sends a piece every 10–30 ms); what arrives meanwhile waits in the kernel and
 * is read at once, on a wake-up the view makes anyway, before its frame. The run view shows the
 * text as each read brings it — 5 times a second, as fast as anyone reads a moving tail — but the
 * end of an answer is known up to this much later.
 */
export const readRestBeats = 2;
export const readRestMs = readRestBeats * beatMs;

/**
 * A read that brought this much or more was a burst (a buffering proxy, a replayed answer, a long
 * tool call): more is waiting in the kernel, so reading goes on without a rest — a rest per read
 * would cap a stream at one socket read (64 KiB) per rest.
 */
const burstBytes = 16 * 1024;

/**
 * How long a stream that has said its last event (`[DONE]`, `message_stop`) may take to end: the
 * HTTP chunk that ends the body normally comes with it, or in the next read (a rest later). Past
 * this, the answer is taken as whole and the connection dropped — a server that kept it open held
 * a finished answer for minutes, unjournaled: a crash meanwhile paid for it again.
 */
const endGraceMs = readRestMs + 100;

/**
 * How long a stream whose answer has ended (a finish or stop reason: `StreamSink.ending`) may take
 * to say its last event. What may come meanwhile is its usage, then the last event; a server that
 * never sends that, and keeps the connection open, held a finished answer until Ctrl+C.
 */
const finishGraceMs = 3_000;

/** What a stream's events go to: each event, and whether the last one came (the answer is whole). */
export interface StreamSink {
  event(event: EventSourceMessage): void;
  over(): boolean;
  /** The answer has ended (its finish reason came); its usage and its last event may still follow. */
  ending?(): boolean;
}

/** The libuv stream under a response's socket (TCP, or TLS over it): where Node itself starts and stops reading. */
interface ReadHandle {
  readStart(): number;
  readStop(): number;
}

/**
 * Node pauses a socket's reading only when its buffer is full (16 KiB: hundreds of pieces), so the
 * rest uses the handle's own readStop/readStart, which Node's net module calls for backpressure;
 * where they are missing, reading never rests. A destroyed socket has no handle.
 */
function readHandle(socket: ModelResponse['body']['socket']): ReadHandle | undefined {
  const handle = (socket as { _handle?: Partial<ReadHandle> | null } | null)?._handle;
  return typeof handle?.readStart === 'function' && typeof handle.readStop === 'function' ? (handle as ReadHandle) : undefined;
}

/** Node's HTTP parser, as its client keeps it on a socket: the response it parses, and its callbacks by slot. */
interface BodyParser {
  incoming: unknown;
  [slot: number]: unknown;
}

/**
 * Takes a response's body off Node's HTTP parser chunk by chunk, before its stream machinery: Node
 * pushes every HTTP chunk of a body through the response's Readable (a chunk is a piece of a
 * streamed answer: ~100 a second), which costs more than reading the piece. The parser's body
 * callback (`parserOnBody`, found by its name among the parser's slots, as Node 20 lays them out)
 * is wrapped: a chunk of this response is kept in `taken`; any other (the parser is pooled, and
 * parses the socket's next response) goes on as before. `release` puts the callback back.
 * Undefined where the parser is not laid out so — another Node — or the response is parsed
 * already: the body is read off the stream.
 */
function tapBody(body: ModelResponse['body'], taken: Buffer[]): { release(): void } | undefined {
  const parser = (body.socket as unknown as { parser?: BodyParser | null } | null)?.parser;
  if (!parser || parser.incoming !== body) return undefined;
  let slot = -1;
  for (let i = 0; i < 10; i++) if (typeof parser[i] === 'function' && (parser[i] as { name: string }).name === 'parserOnBody') slot = i;
  if (slot < 0) return undefined;
  const original = parser[slot] as (this: BodyParser, chunk: Buffer) => void;
  const onBody = function (this: BodyParser, chunk: Buffer): void {
    if (this.incoming === body) taken.push(chunk);
    else original.call(this, chunk);
  };
  parser[slot] = onBody;
  return {
    release() {
      if (parser[slot] === onBody) parser[slot] = original;
    },
  };
}

/**
 * Reads a server-sent-events answer to its end, handing each event to `onEvent` (which may throw
 * to end the stream, e.g. on an `error` event). A connection that breaks midway is network trouble
 * (a retryable ProviderError) and a stop of the run is StepAbortedError: the caller then has only
 * part of an answer, which it must drop. What a socket read brought is read at once, decoded and
 * parsed together: taken off the HTTP parser (tapBody), or else off the response ('readable') — no
 * promise, web stream or stream push per chunk, which is most of what reading a stream costs.
 * After each read's events, `watch.flush` hands on what they said; once `watch.spoke` (the
 * answer has begun to show), reading rests `readRestMs` after each read.
 */
export function readEventStream(response: ModelResponse, post: Pick<JsonPost, 'url' | 'signal' | 'silentAfterMs'>, to: StreamSink | ((event: EventSourceMessage) => void), watch: ReadWatch = unwatched): Promise<void> {
  // A function alone: a stream with no last event of its own, read to the body's end.
  const sink: StreamSink = typeof to === 'function' ? { event: to, over: () => false } : to;
  let refused: Error | undefined;
  /** Events parsed so far: a read that brought none (keep-alive comments) is no sign of an answer. */
  let events = 0;
  const parser = createParser({
    onEvent: (event) => {
      // What a server sends after its last event is no part of the answer.
      if (sink.over()) return;
      events++;
      sink.event(event);
      // A stop made while a read's events are handed on (by onEvent itself): the events after it are
      // not, and the read ends as stopped before the response's end — which would hand the socket back
      // to the pool without its error listener, the stop's AbortError then an uncaught exception.
      if (post.signal.aborted) throw new StepAbortedError();
    },
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') refused = new ProviderError(`${post.url} sent a stream event over ${maxEventChars / 1024 / 1024} Mi characters long (the limit for one event); the answer was dropped`, true);
    },
    maxBufferSize: maxEventChars,
  });
  const body = response.body;
  const encoding = response.header('content-encoding')?.trim().toLowerCase();
  if (encoding && encoding !== 'identity') {
    // A proxy compressing a stream acode asked to get as sent: read as text it ended "before [DONE]",
    // retried five times — six whole answers paid for and dropped.
    body.destroy();
    return Promise.reject(new ProviderError(`${post.url} streamed its answer ${encoding}-encoded although acode asks for none; a proxy in between may be compressing it: turn that off for this server`, false, { detail: 'bad encoding' }));
  }
  const decoder = new StringDecoder('utf8');
  /** Bytes of the body read so far: an answer that never ends is refused at maxAnswerBytes. */
  let received = 0;
  return new Promise((resolve, reject) => {
    let settled = false;
    // Chunks taken off the parser (tapBody) are read once it has parsed a socket read: its 'data'
    // listener was added with the request, before this one.
    const taken: Buffer[] = [];
    const tap = tapBody(body, taken);
    /** Set while the socket rests: cancels the beat that would read it again. */
    let resting: (() => void) | undefined;
    /** Set while what the stream said waits for its reader (`--stream` into a full pipe): the socket reads no more until it drains. */
    let held = false;
    /** Set once the answer ended (or its last event came): takes it as whole if the body does not end first, by `endBy`. */
    let endTimer: NodeJS.Timeout | undefined;
    let endBy = Infinity;
    /**
     * Keep-alive comments (`: ping`) keep the connection from going silent (post-json.ts), but say
     * nothing: a server sending only them held the run until Ctrl+C. Past the same silence with no
     * event, the call is dropped as silent. One timer, armed again for what is left when it fires.
     */
    const silence = post.silentAfterMs ?? silentAnswerMs;
    let heardAt = performance.now();
    let heard = 0;
    let eventless: NodeJS.Timeout | undefined;
    const watchSilence = (ms: number) => {
      eventless = setTimeout(() => {
        // Held for a slow reader of what was said: the server is not the one silent.
        if (held) return watchSilence(silence);
        const quiet = performance.now() - heardAt;
        if (quiet >= silence) settle(broke(keepAliveOnlyCode, 'only keep-alive comments'));
        else watchSilence(silence - quiet);
      }, ms);
    };
    watchSilence(silence);
    // The socket is kept: a response lets go of it when it ends, and it must not stay resting.
    const socket = body.socket;
    // Bytes off the socket when reading last (re)started: a read that brought a burst rests not.
    let readFrom = socket?.bytesRead ?? 0;
    /** Bytes off the socket when the last event was read: more since, and no event, is keep-alive traffic. */
    let bytesAtEvent = readFrom;
    const restAfterRead = () => {
      const read = (socket?.bytesRead ?? 0) - readFrom;
      // Nothing came off the socket since this rest began, or a read that brought a burst: more is waiting in the kernel.
      if (resting || read === 0) return;
      readFrom += read;
      if (read >= burstBytes) return;
      const handle = readHandle(socket);
      if (!handle || handle.readStop() !== 0) return;
      resting = atNextBeat(() => {
        resting = undefined;
        if (!held) readHandle(socket)?.readStart();
      }, readRestBeats);
    };
    /**
     * What was handed on waits for a reader that has not taken it (its output is full): the socket
     * reads no more — the server's bytes wait in the kernel and then in the server, not in this
     * process — until `drained` settles. Neither the connection's nor the events' silence timer runs
     * meanwhile: the reader is slow, not the server. Where reading cannot be stopped, it goes on.
     */
    const holdUntil = (drained: Promise<void>) => {
      const handle = readHandle(socket);
      if (!handle || (!resting && handle.readStop() !== 0)) return;
      held = true;
      socket?.setTimeout(0);
      void drained.then(() => {
        if (!held) return;
        held = false;
        heardAt = performance.now();
        socket?.setTimeout(silence);
        readFrom = socket?.bytesRead ?? 0;
        if (!resting) readHandle(socket)?.readStart();
      });
    };
    const broke = (code: string | undefined, fallback: string) => {
      const cause = networkCauseText(code, fallback);
      const named = code && cause !== code ? `${cause}, ${code}` : cause;
      return new ProviderError(redact(`connection to ${post.url} broke while the answer streamed (${named}); the part received was dropped`), true, { detail: code === silentAnswerCode || code === keepAliveOnlyCode ? cause : 'connection broke' });
    };
    const settle = (error?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(endTimer);
      clearTimeout(eventless);
      if (resting || held) {
        resting?.();
        resting = undefined;
        held = false;
        // The answer ended in the read before the rest: the connection goes back to the pool reading,
        // or the next answer on it would never be read.
        readHandle(socket)?.readStart();
      }
      body.off('readable', onReadable).off('end', onEnd).off('error', onError).off('close', onClose);
      tap?.release();
      socket?.off('data', onSocketData);
      if (error === undefined) return resolve();
      // Ends the connection when a handler threw: nothing more of this answer is wanted.
      body.destroy();
      reject(error instanceof Error ? error : new Error(String(error)));
    };
    let first = true;
    /** Decodes and parses one read's bytes; false once the stream was refused (and settled). */
    const feed = (chunk: Buffer): boolean => {
      received += chunk.length;
      if (received > maxAnswerBytes) {
        settle(answerTooLong(post.url));
        return false;
      }
      let text = decoder.write(chunk);
      // A byte order mark may open a stream (the SSE spec allows one); fetch's TextDecoder dropped
      // it, and the parser would read the first line as a field named "\uFEFFdata", losing its event.
      if (first && text) {
        first = false;
        if (text.startsWith('\uFEFF')) text = text.slice(1);
      }
      parser.feed(text);
      if (refused) settle(refused);
      return !refused;
    };
    const read = () => {
      const full = watch.flush?.();
      if (settled) return;
      const fresh = events !== heard;
      if (fresh) {
        heard = events;
        heardAt = performance.now();
        bytesAtEvent = socket?.bytesRead ?? 0;
      }
      if (sink.over()) return awaitEnd(endGraceMs, false);
      // Events after a finish reason (servers that put one on every chunk, or on a reasoning chunk
      // before the answer) keep the answer open: the grace runs from the last of them.
      if (sink.ending?.()) return awaitEnd(finishGraceMs, true, fresh);
      // Only a promise holds: a watcher typed to return nothing may still return what its last call did.
      if (full instanceof Promise) return holdUntil(full);
      if (watch.spoke()) restAfterRead();
    };
    /**
     * The last event came (or the answer ended): the rest is read at once (no rest), and the body's
     * end waited for `graceMs` at most — the sooner deadline wins, but `restart` sets it anew. After
     * a finish reason (`quiet`), the answer is taken whole only once the server has sent keep-alive
     * bytes and no event for the grace: a server silent meanwhile (thinking before its answer) is
     * waited for, as any silence is (post-json.ts).
     */
    const awaitEnd = (graceMs: number, quiet: boolean, restart = false) => {
      if (resting) {
        resting();
        resting = undefined;
        readHandle(socket)?.readStart();
      }
      const by = performance.now() + graceMs;
      if (!restart && by >= endBy) return;
      endBy = by;
      clearTimeout(endTimer);
      const fire = () => {
        if (quiet && (socket?.bytesRead ?? 0) <= bytesAtEvent) {
          endBy = performance.now() + graceMs;
          endTimer = setTimeout(fire, graceMs);
          return;
        }
        settle();
        // The response never ended: its connection cannot carry another one.
        body.destroy();
      };
      endTimer = setTimeout(fire, graceMs);
    };
    /**
     * A socket read is many HTTP chunks (a piece each, as servers send them). Paused, the response
     * buffers them and says 'readable' once, after the read: they are decoded and parsed together,
     * and what they said goes on once (`watch.flush`) — where a 'data' listener ran Node's stream
     * machinery, the decoder and the parser once a piece.
     */
    const onReadable = () => {
      try {
        for (let chunk = body.read() as Buffer | null; chunk !== null; chunk = body.read() as Buffer | null) if (!feed(chunk)) return;
        read();
      } catch (error) {
        settle(error);
      }
    };
    const onSocketData = () => {
      if (taken.length === 0 || settled) return;
      const chunks = taken.splice(0);
      try {
        if (feed(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))) read();
      } catch (error) {
        settle(error);
      }
    };
    const onEnd = () => {
      try {
        parser.feed(decoder.end());
        if (!refused) void watch.flush?.();
        settle(refused);
      } catch (error) {
        settle(error);
      }
    };
    const onError = (error: Error & { code?: string }) => settle(post.signal.aborted ? new StepAbortedError() : broke(error.code, error.message));
    // Closed without 'end' or 'error' (destroyed from outside): the answer is incomplete all the same.
    const onClose = () => settle(post.signal.aborted ? new StepAbortedError() : broke(undefined, 'connection closed'));
    body.on('readable', onReadable).on('end', onEnd).on('error', onError).on('close', onClose);
    // What the response holds already is read first; what the socket brings next comes by the tap.
    onReadable();
    if (tap && !settled) socket?.on('data', onSocketData);
  });
}

/**
 * What readEventStream tells the one watching a stream: a chunk's events were handed on (`flush`:
 * a promise while the watcher cannot take more, see CompletionRequest.onDelta); and asks: has the
 * answer begun to show (`spoke`)?
 */
export interface ReadWatch {
  spoke(): boolean;
  flush?(): void | Promise<void>;
}

const unwatched: ReadWatch = { spoke: () => false };

/**
 * A call's deltas passed on, a read at a time: the text of one chunk's events (dozens of pieces,
 * after a rest) goes on as one delta when the chunk is read (`flush`) — one notice through the
 * engine and one update of the view instead of one a piece. A tool call that starts goes on at
 * once, after the text before it. Reading rests between chunks once the answer shows (`spoke`),
 * never before its first words.
 */
export function watchedDeltas(onDelta: ((delta: CompletionDelta) => void | Promise<void>) | undefined): ReadWatch & { onDelta: ((delta: CompletionDelta) => void) | undefined; flush(): void | Promise<void> } {
  let spoke = false;
  let text = '';
  const flush = () => {
    if (!text) return;
    const said = text;
    text = '';
    return onDelta?.({ kind: 'text', text: said });
  };
  const passOn =
    onDelta &&
    ((delta: CompletionDelta) => {
      spoke = true;
      if (delta.kind === 'text') {
        text += delta.text;
        return;
      }
      void flush();
      void onDelta(delta);
    });
  return { onDelta: passOn, spoke: () => spoke, flush };
}

/** The stream ended without its closing event: what arrived is only part of an answer. */
export function truncatedStream(url: string, missing: string): ProviderError {
  return new ProviderError(`the answer stream from ${url} ended before ${missing}; the part received was dropped`, true, { detail: 'stream cut short' });
}
