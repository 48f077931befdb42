// A child program of the bench (`dist/run-view-cpu.js`, and `dist/stock/run-view-cpu.js` built
// without the Ink ports of source/ui/): the run view as `acode run` mounts it, a realistic session
// on screen, streaming at the rate a real model does. Prints one line of JSON: the process's CPU
// (user + system) per second of streaming, and the frames drawn and wake-ups per second.
import { timersFired } from './count-timers.js';
import { Writable } from 'node:stream';
import { createRunStore } from '../source/state/run-store.js';
import { mountRunView } from '../source/ui/run/run-screen.js';
import { onEveryBeat } from '../source/engine/beat.js';
import type { EngineEvent, EngineEventBody } from '../source/engine/events.js';
import type { StepNotice } from '../source/engine/step-notice.js';
import { readRestBeats } from '../source/providers/event-stream.js';

/** A 120×40 terminal as far as Ink can tell, that counts what it is sent (a frame ends with the synchronized-output close). */
class CountingTerminal extends Writable {
  readonly isTTY = true;
  columns = 120;
  rows = 40;
  frames = 0;
  bytes = 0;
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    const text = String(chunk);
    this.bytes += text.length;
    if (text.includes('\u001B[?2026l')) this.frames++;
    done();
  }
}

/** What a model writes: prose in markdown with the typography models use (’ “ ” — …), cut into pieces of about a token. */
const prose = `## Findings

The agents we looked at share one shape: a planner that writes the steps, workers that run them, and a reviewer that reads what came back — “the loop”, as most papers call it. Durable execution matters once a run takes more than a few minutes; a crash at step 40 of 60 should not cost the first 39.

- **Checkpointing** after each step keeps the cost of a resume to the step that was cut off.
- **Idempotency keys** let a retried call be recognised by the provider’s side, where it supports them…
- Tool calls with effects outside the journal need to be journaled *before* they run.

Latency is dominated by the model: 50 tokens a second is typical, 150 for the small models. `;
const pieces = prose.match(/\s*\S{1,4}|\s+/g)!;

const seconds = Number(process.argv[2] ?? 5);
const deltasPerS = Number(process.argv[3] ?? 50);

let id = 0;
const event = (body: EngineEventBody): EngineEvent => ({ ...body, event_id: ++id, ts: new Date().toISOString() }) as EngineEvent;
const agents = ['planner', 'researcher', 'researcher', 'analyst', 'writer', 'critic', 'writer', 'editor'];
const store = createRunStore({
  sessionId: '3ead91c07b2f4d18',
  workflowName: 'research-report',
  steps: agents.map((agent, i) => ({ id: String(i), label: agent, title: `step ${i + 1}`, group: null })),
  controls: { cancel() {}, retryNow() {}, abandonRetry() {}, answerApproval() {} },
});
const terminal = new CountingTerminal();
const instance = mountRunView(store, () => undefined, { stdout: terminal as unknown as NodeJS.WriteStream, patchConsole: false });
const { apply } = store.getState();
apply(event({ type: 'session_started', workflow_name: 'research-report', steps_total: agents.length, resumed: false, steps_skipped: 0, tokens: { input: 0, output: 0 } }));
// Three steps done (printed above the frame), the fourth streaming its answer, four pending.
for (const step of [0, 1, 2]) {
  const agent = agents[step]!;
  apply(event({ type: 'step_started', step: String(step), agent, attempt: 1, idempotency_key: `k${step}` }));
  apply(event({ type: 'step_completed', step: String(step), agent, attempt: 1, idempotency_key: `k${step}`, response: prose, usage: { input: 1800 + step * 900, output: 640 }, duration_ms: 12_800 + step * 1_100 }));
}
apply(event({ type: 'step_started', step: '3', agent: agents[3]!, attempt: 1, idempotency_key: 'k3' }));

// A stream's socket is read every readRestBeats beats, on the beat (providers/event-stream.ts); what
// the model sent meanwhile comes in that one read, and bind-engine.ts hands a read's pieces to the
// store in one update: at 50 a second, 10 pieces every 200 ms.
let piece = 0;
let beats = 0;
const perRead = Math.round((deltasPerS * readRestBeats) / 10);
const stopReads = onEveryBeat(() => {
  if (++beats % readRestBeats !== 0) return;
  const notices: StepNotice[] = Array.from({ length: perRead }, () => ({ type: 'step_text', step: '3', attempt: 1, text: pieces[piece++ % pieces.length]! }));
  store.getState().streamed(notices);
});

// One second to warm up (V8 compiles the hot paths), then the span measured.
await new Promise((resolve) => setTimeout(resolve, 1_000));
const [frames, bytes, timers] = [terminal.frames, terminal.bytes, timersFired()];
const before = process.cpuUsage();
const start = performance.now();
await new Promise((resolve) => setTimeout(resolve, seconds * 1_000));
const used = process.cpuUsage(before);
const span = (performance.now() - start) / 1_000;
stopReads();
instance.unmount();
process.stdout.write(
  `${JSON.stringify({ cpuMsPerS: (used.user + used.system) / 1_000 / span, framesPerS: (terminal.frames - frames) / span, timersPerS: (timersFired() - timers) / span, bytesPerS: (terminal.bytes - bytes) / span })}\n`,
);
process.exit(0);
