import { stepStateStyle } from '../../state/session-steps.js';
import { stepFacts } from '../../state/step-detail-lines.js';
import type { SessionStepsView, StepViewState } from '../../state/step-view-store.js';
import { endedNote } from '../../state/not-resumable.js';
import { hints, stepViewBindings } from '../keys/bindings.js';
import type { Line, Segment } from './browser-lines.js';
import { wrapText } from './wrap-text.js';
import { plural } from '../../human-units.js';

const dim = (text: string): Segment => ({ text, dim: true });

/** Lines the step view draws besides its rows: title, position or message, ▲/▼ markers, footer. */
export const stepViewChrome = 5;

/** What the title says of a session that cannot be resumed: why, in its own words, when it has ended. */
function endedLine(session: SessionStepsView): string {
  const note = endedNote(session);
  return note ? ` · ${note}` : '';
}

/** The session, then where the view stands (or the last message). */
function titleLines(view: Pick<StepViewState, 'session' | 'loading' | 'message' | 'selected' | 'detail'>, width: number): Line[] {
  const { session } = view;
  if (!session) return [[{ text: 'acode', bold: true, color: 'cyan' }, dim(` · reading the steps of ${view.loading?.slice(0, 8) ?? ''}…`)], [{ text: view.message ?? ' ', color: 'yellow' }]];
  const title: Line = [{ text: 'acode', bold: true, color: 'cyan' }, dim(' · session '), { text: session.id, color: 'magenta' }, dim(` · ${session.workflow} (${session.pattern})`)];
  const where = view.detail ? `step ${session.steps[view.selected]?.ref ?? ''}: its response and tool calls` : `${plural(session.steps.length, 'step')}${session.resumable ? ' · resumable: r resumes it, f forks it from the selected step' : endedLine(session)}`;
  // A message wraps (up to 3 lines): the list gives up the rows it takes.
  return [title, ...(view.message ? wrapText(view.message, width, 3).map((text): Line => [{ text, color: 'yellow' }]) : [[dim(where)]])];
}

/** The steps, windowed: glyph, name, agent, state, then time, tokens, ≈ $ and the response's first line. */
function listLines(view: Pick<StepViewState, 'session' | 'selected' | 'top' | 'pageSize'>): Line[] {
  // (pageSize and top here are those of the rows left beside a wrapped message.)
  const steps = view.session?.steps ?? [];
  const refWidth = Math.max(0, ...steps.map((s) => s.ref.length));
  const agentWidth = Math.max(0, ...steps.map((s) => s.step.agent.length));
  const rows = steps.map((s) => stepFacts(s.step, s.result, s.dollars));
  const stateWidth = Math.max(0, ...rows.map((row) => row.state.length));
  const lines: Line[] = [];
  for (let i = view.top; i < Math.min(steps.length, view.top + view.pageSize); i++) {
    const { step, ref } = steps[i]!;
    const { state, facts: seen } = rows[i]!;
    // What the pattern read of the answer (a route chosen, a score, a subtask; an agent CLI's conversation) comes first, as in sessions show.
    const facts = step.detail ? [step.detail, ...seen] : seen;
    const style = stepStateStyle[step.status];
    const text = ` ${ref.padEnd(refWidth)}  ${step.agent.padEnd(agentWidth)}  ${state.padEnd(stateWidth)}  ${facts.join('  ')}`;
    lines.push(i === view.selected ? [{ text: `❯ ${style.glyph}${text}`, inverse: true }] : [{ text: '  ' }, { text: style.glyph, color: style.color }, { text }]);
  }
  if (steps.length === 0) lines.push([dim('  no steps')]);
  return lines;
}

/** The step view as styled lines: the list of steps, or the selected step's response, scrolled. */
export function stepViewLines(view: StepViewState, width = Infinity): Line[] {
  const title = titleLines(view, width);
  const pageSize = Math.max(1, view.pageSize - (title.length - 2));
  // The selected step stays in the window a wrapped message made shorter.
  const top = view.detail ? view.detail.top : Math.max(view.top, view.selected - pageSize + 1);
  const body = view.detail ? view.detail.lines.slice(top, top + pageSize).map((line): Line => [{ text: line }]) : listLines({ ...view, top, pageSize });
  const total = view.detail ? view.detail.lines.length : (view.session?.steps.length ?? 0);
  const below = total - top - pageSize;
  return [...title, [dim(top > 0 ? `  ▲ ${top} more` : ' ')], ...body, [dim(below > 0 ? `  ▼ ${below} more` : ' ')]];
}

/** The step view's keys, generated from its bindings. */
export function stepViewFooter(inResponse = false): Line {
  // In a response, Enter has nothing more to open.
  const shown = Object.fromEntries(Object.entries(stepViewBindings).filter(([name]) => !inResponse || name !== 'steps.open'));
  return [dim(hints(shown))];
}
