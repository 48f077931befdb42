/**
 * One timer for what wakes the process on a schedule while a step runs: the run view's tick
 * (elapsed times, the streamed text) and the rests of streams being read (a socket that
 * rests is read again on the next beat). A wake-up from sleep costs more CPU here than the work it
 * does (~0.2 ms on a small VM; a second timer in the same wake-up ~0.05 ms), and two timers of the
 * same period rarely fire together: on one beat, a run that streams wakes 10 times a second, not 20.
 *
 * Listeners for the next beat run before those of every beat, so a stream that rested is read (in
 * the same turn of the event loop, before the frame is drawn) as the view draws its text.
 */
export const beatMs = 100;

type Listener = () => void;

/** Listeners waiting for a beat, each with the beats it still waits (1: the next). */
const nextBeat = new Map<Listener, number>();
const everyBeat = new Set<Listener>();
let timer: NodeJS.Timeout | undefined;

/** Set while a beat's listeners run: a beat brought forward from inside one is the beat already under way. */
let beating = false;

function beat(): void {
  beating = true;
  try {
    runBeat();
  } finally {
    beating = false;
  }
}

function runBeat(): void {
  const due: Listener[] = [];
  for (const [listener, beats] of nextBeat) {
    if (beats > 1) {
      nextBeat.set(listener, beats - 1);
      continue;
    }
    due.push(listener);
    nextBeat.delete(listener);
  }
  let failure: { error: unknown } | undefined;
  // One listener that throws must not leave the others unwoken (a stream resting for ever): each
  // runs, and the first error is thrown after, where it would have been thrown without the beat.
  for (const listener of [...due, ...everyBeat]) {
    try {
      listener();
    } catch (error) {
      failure ??= { error };
    }
  }
  if (nextBeat.size === 0 && everyBeat.size === 0) stop();
  if (failure) throw failure.error;
}

function start(): void {
  timer ??= setInterval(beat, beatMs);
}

function stop(): void {
  clearInterval(timer);
  timer = undefined;
}

/**
 * Adds `listener` (a wrapper of its own: one function subscribed twice is two subscriptions) with
 * `add` until the returned function is called.
 */
function subscribe(listener: Listener, add: (own: Listener) => void, remove: (own: Listener) => void): () => void {
  // A beat calls the listeners that were due when it began: one cancelled meanwhile, by an earlier
  // listener of the same beat, is skipped.
  let active = true;
  const own = () => {
    if (active) listener();
  };
  add(own);
  start();
  return () => {
    active = false;
    remove(own);
    if (nextBeat.size === 0 && everyBeat.size === 0) stop();
  };
}

/** Calls `listener` on every beat until the returned function is called. */
export function onEveryBeat(listener: Listener): () => void {
  return subscribe(listener, (own) => everyBeat.add(own), (own) => everyBeat.delete(own));
}

/**
 * Calls `listener` once, on the `beats`-th beat from now (the next, within `beatMs`, by default),
 * unless the returned function is called first.
 */
export function atNextBeat(listener: Listener, beats = 1): () => void {
  return subscribe(listener, (own) => nextBeat.set(own, Math.max(1, Math.floor(beats))), (own) => nextBeat.delete(own));
}

/**
 * Brings the next beat forward to now, and the one after it `beatMs` from now: what waits for a beat
 * runs at once (a rest counts it as one of its beats). The first words of a stream show at once:
 * drawn on a beat brought forward, where a frame of their own would be one frame more, the whole
 * view drawn again a few ms before the beat draws it anyway. Nothing listening, nothing happens.
 */
export function beatNow(): void {
  if (timer === undefined || beating) return;
  clearInterval(timer);
  timer = setInterval(beat, beatMs);
  beat();
}
