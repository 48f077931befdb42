import { render } from 'ink';
import { Writable } from 'node:stream';
import { createRunStore } from '../source/state/run-store.js';
import { RunView } from '../source/ui/run/run-view.js';
import { runScreenOptions } from '../source/ui/run/run-screen.js';
import { onEveryBeat } from '../source/engine/beat.js';
import type { EngineEvent } from '../source/engine/events.js';
import { readRestBeats } from '../source/providers/event-stream.js';

/** A terminal that takes what Ink writes and counts it: 120×40, a TTY as far as Ink can tell. */
class CountingTerminal extends Writable {
  readonly isTTY = true;
  columns = 120;
  rows = 40;
  writes = 0;
  bytes = 0;
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.writes++;
    this.bytes += chunk.length;
    done();
  }
}

export interface FrameFigures {
  /** CPU (user + system) of the view per second the step ran, in ms. */
  cpuMsPerS: number;
  /** What Ink wrote to the terminal, per second. */
  writesPerS: number;
  bytesPerS: number;
}

let id = 0;
const event = (body: Record<string, unknown>) => ({ ...body, event_id: ++id, ts: new Date().toISOString() }) as unknown as EngineEvent;

/**
 * What the run view alone costs while a step runs: one chain step running for `seconds`, its
 * text arriving `piecesPerRead` word-sized pieces at a time every `readRestBeats` beats, in one
 * notice (as resting reads deliver them: providers/event-stream.ts), or nothing arriving; no model
 * server, no disk — Ink draws into a counting sink.
 */
export async function runViewFrames(seconds: number, streaming: boolean, piecesPerRead = 20): Promise<FrameFigures> {
  const store = createRunStore({
    sessionId: 'bench',
    workflowName: 'frames',
    steps: [0, 1, 2, 3].map((i) => ({ id: String(i), label: 'worker', title: `step ${i + 1}`, group: null })),
    controls: { cancel() {}, retryNow() {}, abandonRetry() {}, answerApproval() {} },
  });
  const terminal = new CountingTerminal();
  const instance = render(<RunView store={store} onForceQuit={() => undefined} />, { ...runScreenOptions, stdout: terminal as unknown as NodeJS.WriteStream });
  store.getState().apply(event({ type: 'session_started', workflow_name: 'frames', steps_total: 4, resumed: false, steps_skipped: 0, tokens: { input: 0, output: 0 } }));
  store.getState().apply(event({ type: 'step_started', step: '0', agent: 'worker', attempt: 1, idempotency_key: 'k' }));
  let piece = 0;
  // A resting stream is read on the beat, as the view ticks (engine/beat.ts), every readRestBeats beats.
  let beats = 0;
  const stopReads = streaming
    ? onEveryBeat(() => {
        if (++beats % readRestBeats !== 0) return;
        const text = Array.from({ length: piecesPerRead }, () => `w${piece}x${piece++ % 97}${piece % 12 === 0 ? '\n' : ' '}`).join('');
        store.getState().streamed([{ type: 'step_text', step: '0', attempt: 1, text }]);
      })
    : () => undefined;
  await new Promise((resolve) => setTimeout(resolve, 300));
  const [writes, bytes] = [terminal.writes, terminal.bytes];
  const before = process.cpuUsage();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const used = process.cpuUsage(before);
  stopReads();
  instance.unmount();
  return { cpuMsPerS: (used.user + used.system) / 1000 / seconds, writesPerS: (terminal.writes - writes) / seconds, bytesPerS: (terminal.bytes - bytes) / seconds };
}
