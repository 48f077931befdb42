import { describe, expect, it } from 'vitest';
import { createStepViewStore, wrapLines, type SessionStepsView } from '../../source/state/step-view-store.js';

const session = (id: string, lines: number): SessionStepsView => ({
  id,
  workflow: 'w',
  pattern: 'chain',
  resumable: false,
  steps: [0, 1].map((index) => ({
    step: { id: String(index), index, agent: 'worker', title: `step ${index + 1}`, group: null, status: 'done', attempt: 0 },
    ref: String(index + 1),
    result: { id: String(index), attempt: 1, tokens: { input: 1, output: 1 }, calls: [{ input: 1, output: 1 }], elapsed_ms: 0, cut: false, prompt: null, reported_usd: null, response: Array.from({ length: lines }, (_, i) => `line ${i + 1}`).join('\n'), tools: [] },
    dollars: undefined,
  })),
});

/** Resolves once the store's pending read has landed. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('the step view state', () => {
  it('wraps a long line at the width instead of cutting it', () => {
    expect(wrapLines(['x'.repeat(25), 'short'], 10)).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5), 'short']);
  });

  it('wraps at word boundaries, each continuation under the line\'s own indent', () => {
    expect(wrapLines(['  durable checkpoints let a long agent run survive crashes'], 20)).toEqual(['  durable', '  checkpoints let a', '  long agent run', '  survive crashes']);
    // A word wider than the room is cut at the edge, its rest under the indent.
    expect(wrapLines(['  see https://example.com/a/very/long/path now'], 16)).toEqual(['  see', '  https://exampl', '  e.com/a/very/l', '  ong/path now']);
    // An indent of half the width or more leaves too little room: continuations start at the edge.
    expect(wrapLines(['            deep text here'], 16)).toEqual(['            deep', 'text here']);
  });

  it('scrolls a response no further than its last page', async () => {
    const store = createStepViewStore(async (id) => session(id, 50));
    store.getState().setSize(10, 80);
    await store.getState().open('abcd', false);
    store.getState().move(1);
    store.getState().openStep();
    const { detail } = store.getState();
    expect(detail!.lines).toContain('  line 50');
    store.getState().page(1);
    expect(store.getState().detail!.top).toBe(10);
    store.getState().scroll(1000);
    expect(store.getState().detail!.top).toBe(detail!.lines.length - 10);
    store.getState().scroll(-1000);
    expect(store.getState().detail!.top).toBe(0);
    store.getState().closeStep();
    expect(store.getState()).toMatchObject({ detail: null, selected: 1 });
  });

  // FIXED: source/state/step-view-store.ts: a response's tabs were kept; Ink counts a tab no columns where the terminal jumps to
  // the next stop, so a line of them overflowed the width and the frame scrolled.
  it('shows a tab as two spaces, and wraps the line as it is then drawn', async () => {
    const tabbed = (id: string) => {
      const view = session(id, 1);
      view.steps[0]!.result!.response = 'a\tb\tc\td\te\tf';
      return view;
    };
    const store = createStepViewStore(async (id) => tabbed(id));
    store.getState().setSize(10, 10);
    await store.getState().open('abcd', false);
    store.getState().openStep();
    const lines = store.getState().detail!.lines;
    expect(lines.join('\n')).not.toContain('\t');
    expect(lines).toEqual(expect.arrayContaining(['  a  b  c', '  d  e  f']));
  });

  it('shows only the session of the latest Enter when reads finish out of order', async () => {
    const reads: ((view: SessionStepsView) => void)[] = [];
    const store = createStepViewStore((id) => new Promise((resolve) => reads.push(() => resolve(session(id, 1)))));
    void store.getState().open('first', false);
    void store.getState().open('second', false);
    reads[1]!(session('second', 1));
    reads[0]!(session('first', 1));
    await settled();
    expect(store.getState().session?.id).toBe('second');
  });

  it('says why when the steps cannot be read', async () => {
    const store = createStepViewStore(async () => {
      throw new Error('events.jsonl cannot be read');
    });
    expect(await store.getState().open('abcd1234ffff', false)).toBe('cannot read the steps of abcd1234: events.jsonl cannot be read');
    expect(store.getState()).toMatchObject({ session: null, loading: null });
  });
});

describe("the step view's list", () => {
  it("says what the pattern read of each step's answer first, as sessions show does (a route and those not taken, an agent CLI's conversation)", async () => {
    const { stepViewLines } = await import('../../source/ui/browser/step-view-lines.js');
    const view = session('abcd', 1);
    view.pattern = 'routing';
    view.steps[0]!.step.detail = 'chose technical (not taken: faq)';
    const store = createStepViewStore(async () => view);
    store.getState().setSize(10, 120);
    await store.getState().open('abcd', false);
    const rows = stepViewLines(store.getState()).map((line) => line.map((segment) => segment.text).join(''));
    expect(rows.find((row) => row.includes('chose technical'))).toMatch(/done {2}chose technical \(not taken: faq\) {2}attempt 1/);
    expect(rows.filter((row) => row.includes('chose'))).toHaveLength(1);
  });
});
