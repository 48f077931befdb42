import '../helpers/every-frame.js';
import { describe, expect, it, vi } from 'vitest';
import type { EngineEvent, EngineEventBody } from '../../source/engine/events.js';
import { fakeTerminal } from '../helpers/fake-terminal.js';
import { screenOf } from '../helpers/terminal-screen.js';

const { createRunStore } = await import('../../source/state/run-store.js');
const { mountRunView } = await import('../../source/ui/run/run-screen.js');

const [columns, rows] = [100, 40];

let id = 0;
const ev = (body: EngineEventBody): EngineEvent => ({ ...body, event_id: ++id, ts: new Date(0).toISOString() });

/**
 * The run view as `acode run` draws it on a terminal (mountRunView: a changed line at a time),
 * what the terminal shows read back through a terminal emulator. A fixed clock keeps elapsed times
 * still; spinners show as ⠿ whatever their frame. (One Ink a process: Ink's reconciler keeps the
 * last <Static> it mounted in a module variable, so a second view in the same process, drawn whole
 * for reference, would take the first one's finished steps.) `before`: what the terminal showed
 * already — a shell's history, acode started on its bottom row.
 */
function drawnView({ height = rows, width = columns, before = '', workflow = false, tasks = 3, taskId = (i: number) => `t${i + 1}`, level = 'level 1' } = {}) {
  const controls = { cancel: vi.fn(), retryNow: vi.fn(), abandonRetry: vi.fn(), answerApproval: vi.fn() };
  const steps = workflow
    ? Array.from({ length: tasks }, (_, i) => taskId(i)).map((task) => ({ id: task, label: 'w', title: `task ${task}`, group: level }))
    : [0, 1, 2, 3, 4, 5].map((n) => ({ id: String(n), label: `agent${n}`, title: `step ${n + 1}`, group: null }));
  const store = createRunStore({ sessionId: 'abcd1234abcd1234', workflowName: workflow ? 'wf' : 'demo', pattern: workflow ? 'workflow' : 'chain', steps, controls, now: () => 1_000 });
  const terminal = fakeTerminal(width, height);
  const view = mountRunView(store, vi.fn(), { stdout: Object.assign(terminal.stdout, { isTTY: true }) as never, stdin: terminal.stdin as never });
  const screen = async () => (await screenOf(before + terminal.stdout.written(), width, height)).text.map((row) => row.replace(/[\u2800-\u28ff]/g, '⠿').replace(/pid \d+/, 'pid N'));
  /** Waits until the terminal shows `expected` from its top row, blank below; fails showing both. */
  const shows = (expected: string[]) => expect.poll(screen, { timeout: 3_000 }).toEqual([...expected, ...Array<string>(height - expected.length).fill('')]);
  /** Waits until `text` shows anywhere on the terminal. */
  const showsText = (text: string) => expect.poll(async () => (await screen()).join('\n'), { timeout: 3_000 }).toContain(text);
  const apply = (body: EngineEventBody) => store.getState().apply(ev(body));
  const say = (step: string, text: string) => store.getState().streamed([{ type: 'step_text', step, attempt: 1, text }]);
  /** The chain's session starts and its first step runs. */
  const startChain = () => {
    apply({ type: 'session_started', workflow_name: 'demo', steps_total: 6, resumed: false, steps_skipped: 0, tokens: { input: 0, output: 0 } });
    apply({ type: 'step_started', step: '0', agent: 'agent0', attempt: 1, idempotency_key: 'k0' });
  };
  const askApproval: ReturnType<typeof store.getState>["askApproval"] = (request) => store.getState().askApproval(request);
  /** The terminal is made `to` columns wide, as a person drags its edge: Ink and the view hear it at once. */
  const resize = (to: number) => {
    terminal.stdout.columns = to;
    terminal.stdout.emit('resize');
  };
  const redraw = () => terminal.stdout.emit('resize');
  const type = (chunk: string) => terminal.stdin.type(chunk);
  return { apply, say, startChain, askApproval, shows, showsText, screen, resize, redraw, type, writes: terminal.stdout.writes, unmount: () => view.unmount() };
}

/** A view (drawnView's options) whose chain has started and runs its first step, handed to `test`; unmounted after, whatever happens. */
async function withRunningChain(options: Parameters<typeof drawnView>[0], test: (view: ReturnType<typeof drawnView>) => Promise<void>): Promise<void> {
  const view = drawnView(options);
  try {
    view.startChain();
    await test(view);
  } finally {
    view.unmount();
  }
}

const header = 'acode demo · 6 steps · session abcd1234abcd1234 · pid N';
const totals = (done: number, tokens: string) => `${done}/6 done · 0 skipped (completed earlier) · ${6 - done} remaining · tokens ${tokens} · 0.0s`;

describe('the run view on a terminal, a changed line at a time', () => {
  it('shows every frame whole: a tail growing and scrolling, gone when its step ends, the frame shrinking and growing', async () => {
    await withRunningChain({}, async (view) => {
      const pending = (from: number) => [...[from, from + 1, from + 2].map((n) => `○   ${n} agent${n - 1}`), `  … ${6 - from - 2} more pending`];
      await view.shows([header, '⠿   1 agent0 0.0s', ...pending(2), '', totals(0, '0 in / 0 out'), 'Ctrl+C pause']);
      view.say('0', 'first line of the answer\nsecond');
      await view.shows([header, '⠿   1 agent0 0.0s', '      │ first line of the answer', '      │ second', ...pending(2), '', totals(0, '0 in / 0 out'), 'Ctrl+C pause']);
      // Past six rows the tail scrolls: every row changes, the frame keeps its height.
      view.say('0', ' line\n3\n4\n5\n6\n7\n8 is a much longer line than the ones before it, long enough to be cut into two rows of the tail');
      const tail = ['4', '5', '6', '7', '8 is a much longer line than the ones before it, long enough to be cut into two rows of the', ' tail'].map((row) => `      │ ${row}`);
      await view.shows([header, '⠿   1 agent0 0.0s', ...tail, ...pending(2), '', totals(0, '0 in / 0 out'), 'Ctrl+C pause']);
      // The step ends: its row goes above the frame for good, the tail's rows are gone, the frame is shorter.
      view.apply({ type: 'step_completed', step: '0', agent: 'agent0', attempt: 1, idempotency_key: 'k0', response: 'whole', usage: { input: 3, output: 4 }, duration_ms: 10 });
      view.apply({ type: 'step_started', step: '1', agent: 'agent1', attempt: 1, idempotency_key: 'k1' });
      const done = '✓   1 agent0 0.0s · 3 in / 4 out';
      await view.shows([header, done, '⠿   2 agent1 0.0s', ...pending(3), '', totals(1, '3 in / 4 out'), 'Ctrl+C pause']);
      view.say('1', 'the next step speaks');
      await view.shows([header, done, '⠿   2 agent1 0.0s', '      │ the next step speaks', ...pending(3), '', totals(1, '3 in / 4 out'), 'Ctrl+C pause']);
    });
  });

  it('sends the terminal only the lines a tick moved: a running step’s spinner, not the whole frame', async () => {
    await withRunningChain({}, async (view) => {
      view.say('0', 'a\nfew\nlines\nof\nanswer\nshown');
      await view.showsText('│ shown');
      const frameChars = (await view.screen()).join('\n').trimEnd().length;
      const from = view.writes.length;
      // Five ticks with nothing new but the spinner (each frame ends with the synchronized-output close).
      const frameEnds = () => view.writes.slice(from).filter((write) => write === '\u001B[?2026l').length;
      await expect.poll(frameEnds, { timeout: 3_000 }).toBeGreaterThanOrEqual(5);
      const frames = frameEnds();
      const sentPerFrame = view.writes.slice(from).join('').length / frames;
      // The frame is six rows of tail, five of steps, the totals and the keys; a tick moves one row
      // (a whole frame rewritten is all of it, and the codes that erase the one before).
      expect(sentPerFrame).toBeLessThan(frameChars / 3);
      expect((await view.screen()).join('\n')).toContain('│ shown');
    });
  });

  it('in a 12-row terminal (a tmux pane split in two), keeps a streaming chain shorter than the terminal: three rows of its words, no full-screen redraws', async () => {
    await withRunningChain({ height: 12 }, async (view) => {
      view.say('0', '1\n2\n3\n4\n5\n6\n7\n8\n9');
      // Six rows of words and three pending steps would make the frame 14 rows: Ink then clears the
      // screen and its scrollback and rewrites every finished row, each frame.
      // The header scrolled up: the frame is the 11 rows below it.
      await view.shows(['⠿   1 agent0 0.0s', '      │ 7', '      │ 8', '      │ 9', '○   2 agent1', '○   3 agent2', '○   4 agent3', '  … 2 more pending', '', totals(0, '0 in / 0 out'), 'Ctrl+C pause']);
      const frames = view.writes.length;
      await expect.poll(() => view.writes.length, { timeout: 3_000 }).toBeGreaterThan(frames + 3);
      expect(view.writes.join('')).not.toContain('\u001b[2J');
    });
  });

  it('in a 24-row terminal, keeps an approval with a long context shorter than the terminal: its first lines, the rest counted', async () => {
    await withRunningChain({ height: 24 }, async (view) => {
      const context = Array.from({ length: 30 }, (_, i) => `context line ${i + 1}`).join('\n');
      view.askApproval({ step: '0', prompt: 'Approve the research?', context, defaultResponse: 'approved' });
      // Fourteen lines of context, the panel's border, title, prompt and keys, and the rows around it
      // made 29 rows: Ink cleared the screen and its scrollback on every frame while the person read.
      await view.showsText('more lines');
      const screen = await view.screen();
      expect(screen.filter((row) => row.includes('context line 1 '))).toHaveLength(1);
      expect(screen.join('\n')).toMatch(/… \d+ more lines/);
      // The whole frame shows, from the running step (the header scrolled up above it) down to the key hint under the totals.
      expect(screen.slice(0, 2)).toEqual(['⠿   1 agent0 0.0s', `╭${'─'.repeat(columns - 2)}╮`]);
      expect(screen.filter(Boolean).at(-1)).toBe('Ctrl+C pause');
      const frames = view.writes.length;
      await expect.poll(() => view.writes.length, { timeout: 3_000 }).toBeGreaterThan(frames + 3);
      expect(view.writes.join('')).not.toContain('\u001b[2J');
    });
  });

  /** After a few more frames, the terminal was never cleared whole (Ink's redraw of a frame as tall as the terminal) and shows the frame's last row. */
  const neverClears = async (view: ReturnType<typeof drawnView>, last: string | RegExp = 'Ctrl+C pause', ticks = true) => {
    const frames = view.writes.length;
    // Frames drawn again at once, as a resize to the same size draws them: a view waiting on a person has no tick.
    for (let i = 0; i < 3; i++) view.redraw();
    if (ticks) await expect.poll(() => view.writes.length, { timeout: 3_000 }).toBeGreaterThan(frames + 3);
    expect(view.writes.join('')).not.toContain('\u001b[2J');
    const row = (await view.screen()).filter(Boolean).at(-1);
    if (typeof last === 'string') expect(row).toBe(last);
    else expect(row).toMatch(last);
  };

  it('at 30 columns, keeps a finished step of a lane still running to one row: no full-screen redraws', async () => {
    const view = drawnView({ height: 12, width: 30, workflow: true, tasks: 3 });
    try {
      view.apply({ type: 'session_started', workflow_name: 'wf', steps_total: 3, resumed: false, steps_skipped: 0, tokens: { input: 0, output: 0 } });
      for (const task of ['t1', 't2']) view.apply({ type: 'step_started', step: task, agent: 'worker', attempt: 1, idempotency_key: task });
      view.apply({ type: 'step_completed', step: 't1', agent: 'worker', attempt: 1, idempotency_key: 't1', response: 'whole', usage: { input: 3, output: 75 }, duration_ms: 3800 });
      await view.showsText('✓ t1');
      const screen = await view.screen();
      // "  ✓ t1 worker 3.8s · 3 in / 75 out", cut at 30 columns: the next row is the running task's, not the row's end.
      const done = screen.findIndex((row) => row.startsWith('  ✓ t1 worker'));
      expect(screen[done]).toMatch(/…$/);
      expect(screen[done + 1]).toMatch(/^ {2}⠿ t2 worker/);
      await neverClears(view);
    } finally {
      view.unmount();
    }
  });

  it('at 40 columns, cuts a lane’s header and its live rows at the width, never wrapping them: no full-screen redraws', async () => {
    const long = (i: number) => `task_with_a_rather_long_identifier_number_${i + 1}`;
    const view = drawnView({ height: 12, width: 40, workflow: true, tasks: 3, taskId: long, level: 'a_level_named_at_length_web_research' });
    try {
      view.apply({ type: 'session_started', workflow_name: 'wf', steps_total: 3, resumed: false, steps_skipped: 0, tokens: { input: 0, output: 0 } });
      for (const i of [0, 1]) view.apply({ type: 'step_started', step: long(i), agent: 'w', attempt: 1, idempotency_key: long(i) });
      await view.showsText('Ctrl+C pause');
      const screen = await view.screen();
      // Each row of the lane is one row, cut with "…": the header, two running tasks (the lane's one
      // spinner on the first, ● on the other), the pending one.
      const lane = screen.slice(screen.findIndex((row) => row.startsWith('▸ a_level')), screen.indexOf(''));
      expect(lane).toHaveLength(4);
      for (const row of lane) expect(row).toMatch(/…$/);
      expect(lane.slice(1).map((row) => row.trim()[0])).toEqual(['⠿', '●', '○']);
      await neverClears(view);
    } finally {
      view.unmount();
    }
  });

  // (At 30 columns the totals, the wait and the panel's keys alone take 12 rows.)
  it.each([80, 60, 40])('at 12 rows and %i columns, fits an approval with its context and the wait under it (without its border where it must): no full-screen redraws', async (width) => {
    await withRunningChain({ height: 12, width }, async (view) => {
      // As examples/chain-approval-demo.yaml asks: a few lines of context. The panel's two counted rows were more than its room.
      view.apply({ type: 'approval_requested', step: '0', attempt: 1, prompt: 'Approve the research?', context: 'one\ntwo\nthree', default_response: 'approved' });
      view.askApproval({ step: '0', prompt: 'Approve the research?', context: 'one\ntwo\nthree', defaultResponse: 'approved' });
      await view.showsText('approval needed');
      await neverClears(view, width >= 56 ? 'Ctrl+C pause (the session keeps waiting for its answer)' : /answer\)$/, false);
    });
  });

  it('at 14 rows and 50 columns, shows a long response being typed by its last rows: no full-screen redraws', async () => {
    await withRunningChain({ height: 14, width: 50 }, async (view) => {
      view.apply({ type: 'approval_requested', step: '0', attempt: 1, prompt: 'Approve the research?', context: 'one\ntwo\nthree', default_response: 'approved' });
      view.askApproval({ step: '0', prompt: 'Approve the research?', context: 'one\ntwo\nthree', defaultResponse: 'approved' });
      await view.showsText('approval needed');
      view.type('e');
      await view.showsText('Enter submit');
      // A key at a time, as a person types: 200 characters wrap to 6 rows beside the label, more than the terminal has left.
      const text = Array.from({ length: 20 }, (_, i) => `word${String(i).padStart(2, '0')}xx`).join(' ');
      for (const char of text) {
        view.type(char);
        await new Promise((resolve) => setImmediate(resolve));
      }
      // The end of what was typed shows, the editor's keys under it; the start scrolled out of sight.
      await view.showsText('word19xx');
      const screen = await view.screen();
      expect(screen.join('\n')).not.toContain('word00xx');
      expect(screen).toContain('Enter submit · Esc cancel');
      await neverClears(view, /answer\)$/, false);
    });
  });

  it('at 50 columns, counts the wrapped line under an approval panel: no full-screen redraws', async () => {
    await withRunningChain({ height: 24, width: 50 }, async (view) => {
      const context = Array.from({ length: 20 }, (_, i) => `context line ${i + 1}`).join('\n');
      view.apply({ type: 'approval_requested', step: '0', attempt: 1, prompt: 'Approve the research?', context, default_response: 'approved' });
      view.askApproval({ step: '0', prompt: 'Approve the research?', context, defaultResponse: 'approved' });
      await view.showsText('more lines');
      await neverClears(view, 'answer)', false);
    });
  });

  it('at 40 columns, counts a retry countdown and the totals as the rows they wrap to: no full-screen redraws', async () => {
    await withRunningChain({ height: 12, width: 40 }, async (view) => {
      const next = new Date(Date.now() + 41_000).toISOString();
      view.apply({ type: 'resume_attempt', step: '0', attempt: 2, max_attempts: 5, stop_reason: 'rate_limit', retry_after_ms: 41_000, strategy: 'same_session', message: 'HTTP 429 from http://127.0.0.1/v1: slow down', detail: 'HTTP 429', outcome: { kind: 'delayed', next_attempt_at: next } });
      await view.showsText('retry 2/5 in');
      // The countdown and the totals take five rows at 40 columns: the pending steps give way.
      expect((await view.screen()).join('\n')).toContain('r retry now · a abort');
      await neverClears(view);
    });
  });

  it('at 30 columns, counts the totals as the rows they wrap to: no full-screen redraws', async () => {
    await withRunningChain({ height: 12, width: 30 }, async (view) => {
      view.say('0', '1\n2\n3\n4\n5\n6\n7\n8\n9');
      await view.showsText('│ 9');
      await neverClears(view);
    });
  });

  it('in an 8-row terminal, counts a level’s running tasks past those it has room for on one line', async () => {
    const view = drawnView({ height: 8, workflow: true, tasks: 5 });
    try {
      view.apply({ type: 'session_started', workflow_name: 'wf', steps_total: 5, resumed: false, steps_skipped: 0, tokens: { input: 0, output: 0 } });
      for (const task of ['t1', 't2', 't3', 't4', 't5']) view.apply({ type: 'step_started', step: task, agent: 'w', attempt: 1, idempotency_key: task });
      await view.showsText('more running');
      const screen = await view.screen();
      expect(screen).toContain('▸ level 1 · 0/5 done · 5 running');
      expect(screen.join('\n')).toMatch(/ {4}… \d more running/);
      await neverClears(view);
    } finally {
      view.unmount();
    }
  });

  it('narrowed mid-stream, draws its first frame at the new width: no full-screen redraw', async () => {
    await withRunningChain({ height: 12 }, async (view) => {
      // Rows of the tail as wide as 100 columns allow: at 60 each would wrap into two.
      view.say('0', Array.from({ length: 9 }, (_, i) => `${i} ${'word '.repeat(18)}`).join('\n'));
      await view.showsText('│ 8 word');
      const from = view.writes.length;
      view.resize(60);
      const frames = view.writes.length;
      await expect.poll(() => view.writes.length, { timeout: 3_000 }).toBeGreaterThan(frames + 3);
      expect(view.writes.slice(from).join('')).not.toContain('\u001b[2J');
    });
  });

  it('at 35 columns, writes no line wider than the terminal: the header and finished rows wrap as words', async () => {
    await withRunningChain({ height: 30, width: 35 }, async (view) => {
      view.apply({ type: 'step_completed', step: '0', agent: 'agent0', attempt: 1, idempotency_key: 'k0', response: 'whole', usage: { input: 3, output: 75 }, duration_ms: 3800 });
      view.apply({ type: 'step_started', step: '1', agent: 'agent1', attempt: 1, idempotency_key: 'k1' });
      view.apply({ type: 'step_failed', step: '1', attempt: 1, reason: 'provider_error', message: "HTTP 400 from http://127.0.0.1/v1: this model's maximum context length is 8192 tokens", retryable: false });
      await view.showsText('maximum');
      // What Ink wrote, line by line, its escape codes taken out: a line wider than the terminal is
      // wrapped by the terminal where Ink does not count it (its rows, then its frames, go astray).
      const lines = view.writes.join('').replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').split('\n');
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(35);
      const screen = (await view.screen()).join('\n');
      expect(screen).toContain('abcd1234abcd1234');
      expect(screen).toMatch(/✗ {3}2 agent1 HTTP 400/);
    });
  });

  it('keeps a running step to one row when its tool call names a long path, cut at the width', async () => {
    await withRunningChain({}, async (view) => {
      const path = `docs/${'deeply/nested/'.repeat(8)}notes-file.md`;
      view.apply({ type: 'tool_called', step: '0', attempt: 1, call_id: 'c1', name: 'file_read', args: { path } });
      await view.showsText('→ file_read');
      const screen = await view.screen();
      const row = screen.findIndex((line) => line.includes('→ file_read'));
      expect(screen[row]).toMatch(/^⠿ {3}1 agent0 0\.0s → file_read docs\/deeply.*…$/);
      expect(screen[row + 1]).toBe('○   2 agent1');
    });
  });

  it('in a terminal shorter than the frame, ends with every row of the last frame', async () => {
    // Four rows: the running step, a blank row, the totals and the key hint fill them, which Ink draws as a full screen.
    await withRunningChain({ height: 4 }, async (view) => {
      view.say('0', '1\n2\n3\n4\n5\n6\n7');
      await view.showsText('Ctrl+C pause');
      for (const n of [0, 1, 2, 3, 4, 5]) {
        if (n > 0) view.apply({ type: 'step_started', step: String(n), agent: `agent${n}`, attempt: 1, idempotency_key: `k${n}` });
        view.apply({ type: 'step_completed', step: String(n), agent: `agent${n}`, attempt: 1, idempotency_key: `k${n}`, response: 'whole', usage: { input: 1, output: 1 }, duration_ms: 10 });
      }
      // The frame shrinks below the terminal's height; the next one (the run's outcome) is drawn over it.
      await view.showsText('6/6 done');
      view.apply({ type: 'session_completed', tokens: { input: 6, output: 6 } });
      await view.showsText('✓ completed');
      // As acode closes the run screen: Ink draws the last frame as it unmounts.
      view.unmount();
      // The outcome and the totals row above it, the cursor on the row below: no row lost, none twice.
      expect(await view.screen()).toEqual(['', totals(6, '6 in / 6 out'), '✓ completed', '']);
    });
  });

  // A terminal full of a shell's history, `acode run` typed on its bottom row: the usual start. The
  // frame then grows on the bottom row, where moving down a row needs a newline (it scrolls) and
  // not the cursor-next-line code Ink 6.8 moved over an unchanged line with (it does not).
  const history = `${Array.from({ length: rows - 1 }, (_, i) => `history line ${i}`).join('\n')}\n$ acode run spec.yaml\n`;
  const fromPrompt = (screen: string[]) => screen.slice(screen.indexOf('$ acode run spec.yaml'));
  /** The terminal shows `expected` from the prompt down, and still does after a few more frames (a tick each), which start from where the terminal really is. */
  const showsAfterTicks = async (view: ReturnType<typeof drawnView>, expected: string[]) => {
    await expect.poll(async () => fromPrompt(await view.screen()), { timeout: 3_000 }).toEqual(expected);
    const frames = view.writes.length;
    await expect.poll(() => view.writes.length, { timeout: 3_000 }).toBeGreaterThan(frames + 6);
    expect(fromPrompt(await view.screen())).toEqual(expected);
  };

  it('at the bottom of a full terminal, keeps every row when a tail grows by three rows in one frame', async () => {
    await withRunningChain({ before: history }, async (view) => {
      await view.showsText('Ctrl+C pause');
      view.say('0', 'alpha\nbeta\ngamma');
      const expected = ['$ acode run spec.yaml', header, '⠿   1 agent0 0.0s', ...['alpha', 'beta', 'gamma'].map((row) => `      │ ${row}`), '○   2 agent1', '○   3 agent2', '○   4 agent3', '  … 2 more pending', '', totals(0, '0 in / 0 out'), 'Ctrl+C pause', ''];
      await showsAfterTicks(view, expected);
    });
  });

  it('at the bottom of a full terminal, keeps the header and the blank rows when a workflow’s first words show', async () => {
    const view = drawnView({ before: history, workflow: true });
    try {
      view.apply({ type: 'session_started', workflow_name: 'wf', steps_total: 3, resumed: false, steps_skipped: 0, tokens: { input: 0, output: 0 } });
      for (const task of ['t1', 't2', 't3']) view.apply({ type: 'step_started', step: task, agent: 'w', attempt: 1, idempotency_key: task });
      await view.showsText('Ctrl+C pause');
      // A blank row, the stream's title and one row of it: the frame grows by three.
      view.say('t1', 'first words');
      const expected = ['$ acode run spec.yaml', 'acode wf · 3 tasks in 1 level · session abcd1234abcd1234 · pid N', '▸ level 1 · 0/3 done · 3 running', '  ⠿ t1 w 0.0s', '  ● t2 w 0.0s', '  ● t3 w 0.0s', '', '▸ task t1', '  │ first words', '', '0/3 done · 0 skipped (completed earlier) · 3 remaining · 3 running · tokens 0 in / 0 out · 0.0s', 'Ctrl+C pause', ''];
      await showsAfterTicks(view, expected);
    } finally {
      view.unmount();
    }
  });
});
