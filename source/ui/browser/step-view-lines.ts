import { stepStateStyle } from '../../state/session-steps.js';
import { stepFacts } from '../../state/step-detail-lines.js';
import type { StepViewState } from '../../state/step-view-store.js';
import { hints, stepViewBindings } from '../keys/bindings.js';
import type { Line, Segment } from './browser-lines.js';

const dim = (text: string): Segment => ({ text, dim: true });

/** Lines the step view draws besides its rows: title, position or message, ▲/▼ markers, footer. */
export const stepViewChrome = 5;

/** The session, then where the view stands (or the last message). */
function titleLines(view: Pick<StepViewState, 'session' | 'loading' | 'message' | 'selected' | 'detail'>): Line[] {
  const { session } = view;
  if (!session) return [[{ text: 'acode', bold: true, color: 'cyan' }, dim(` · reading the steps of ${view.loading?.slice(0, 8) ?? ''}…`)], [{ text: view.message ?? ' ', color: 'yellow' }]];
  const title: Line = [{ text: 'acode', bold: true, color: 'cyan' }, dim(' · session '), { text: session.id, color: 'magenta' }, dim(` · ${session.workflow} (${session.pattern})`)];
  const where = view.detail ? `step ${session.steps[view.selected]?.ref ?? ''}: its response and tool calls` : `${session.steps.length} steps${session.resumable ? ' · resumable: r resumes it' : ''}`;
  return [title, view.message ? [{ text: view.message, color: 'yellow' }] : [dim(where)]];
}

/** The steps, windowed: glyph, name, agent, state, then time, tokens, ≈ $ and the response's first line. */
function listLines(view: Pick<StepViewState, 'session' | 'selected' | 'top' | 'pageSize'>): Line[] {
  const steps = view.session?.steps ?? [];
  const refWidth = Math.max(0, ...steps.map((s) => s.ref.length));
  const agentWidth = Math.max(0, ...steps.map((s) => s.step.agent.length));
  const rows = steps.map((s) => stepFacts(s.step, s.result, s.dollars));
  const stateWidth = Math.max(0, ...rows.map((row) => row.state.length));
  const lines: Line[] = [];
  for (let i = view.top; i < Math.min(steps.length, view.top + view.pageSize); i++) {
    const { step, ref } = steps[i]!;
    const { state, facts } = rows[i]!;
    const style = stepStateStyle[step.status];
    const text = ` ${ref.padEnd(refWidth)}  ${step.agent.padEnd(agentWidth)}  ${state.padEnd(stateWidth)}  ${facts.join('  ')}`;
    lines.push(i === view.selected ? [{ text: `❯ ${style.glyph}${text}`, inverse: true }] : [{ text: '  ' }, { text: style.glyph, color: style.color }, { text }]);
  }
  if (steps.length === 0) lines.push([dim('  no steps')]);
  return lines;
}

/** The step view as styled lines: the list of steps, or the selected step's response, scrolled. */
export function stepViewLines(view: StepViewState): Line[] {
  const body = view.detail ? view.detail.lines.slice(view.detail.top, view.detail.top + view.pageSize).map((line): Line => [{ text: line }]) : listLines(view);
  const above = view.detail ? view.detail.top : view.top;
  const total = view.detail ? view.detail.lines.length : (view.session?.steps.length ?? 0);
  const below = total - above - view.pageSize;
  return [...titleLines(view), [dim(above > 0 ? `  ▲ ${above} more` : ' ')], ...body, [dim(below > 0 ? `  ▼ ${below} more` : ' ')]];
}

/** The step view's keys, generated from its bindings. */
export function stepViewFooter(): Line {
  return [dim(hints(stepViewBindings))];
}
