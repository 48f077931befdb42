import spinners from 'cli-spinners';
import { describe, expect, it } from 'vitest';
import type { StepView } from '../../source/state/run-store.js';
import { TickProvider } from '../../source/ui/run/run-tick.js';
import { StepRow } from '../../source/ui/run/step-row.js';
import { renderInk } from '../helpers/ink.js';

const running: StepView = { id: '1', index: 1, agent: 'analyst', title: 'step 2', group: null, status: 'running', attempt: 1 };
const { frames } = spinners.dots;

/** A step row under a run view's tick that never ticks (`live` false): whatever moves, moves on its own timer. */
const stillRow = (spinner?: boolean) =>
  renderInk(
    <TickProvider clock={() => 0} live={false}>
      <StepRow step={running} spinner={spinner} />
    </TickProvider>,
  );

describe("a running step's glyph", () => {
  it("is ink-spinner's dots, turning on its own timer, not on the run view's tick", async () => {
    const ui = stillRow();
    try {
      const glyph = () => ui.frame().trim()[0]!;
      const seen = [glyph()];
      while (seen.length < 4) {
        const next = await ui.waitForFrame((frame) => frame.trim()[0] !== seen.at(-1));
        seen.push(next.trim()[0]!);
      }
      // Four frames of cli-spinners' "dots", one after the other, though the tick never moved.
      const first = frames.indexOf(seen[0]!);
      expect(first).toBeGreaterThanOrEqual(0);
      expect(seen).toEqual([0, 1, 2, 3].map((i) => frames[(first + i) % frames.length]));
    } finally {
      ui.unmount();
    }
  });

  it('is the running glyph ●, still, on a row not given the spinner (a lane spins one)', async () => {
    const ui = stillRow(false);
    try {
      expect(ui.frame()).toMatch(/^● +2 analyst/);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(ui.frame()).toMatch(/^● +2 analyst/);
    } finally {
      ui.unmount();
    }
  });
});
