import type { Pattern, PatternStep, ShapeNode } from '../../source/engine/pattern.js';
import type { SessionProgress } from '../../source/engine/session-progress.js';
import type { StepId } from '../../source/engine/step-id.js';
import type { Variables } from '../../source/engine/template-context.js';

/**
 * A test-only pattern that creates its steps while it runs, as evaluator_optimizer and graph will:
 * iteration k drafts (`iter-k/draft`), then judges the draft (`iter-k/judge`); a judgement saying
 * STOP ends the loop, anything else starts iteration k+1, up to `maxIterations`. Whether the loop
 * goes on is read from the judge's recorded response — never asked again — so a resume, whose
 * progress is replayed from the log, sees exactly the iterations the interrupted run saw.
 */
export function revisionLoop(maxIterations: number): Pattern {
  const draftId = (k: number): StepId => `iter-${k}/draft`;
  const judgeId = (k: number): StepId => `iter-${k}/judge`;
  const parse = (id: StepId) => {
    const match = /^iter-([1-9]\d*)\/(draft|judge)$/.exec(id);
    const k = match ? Number(match[1]) : 0;
    return match && k <= maxIterations ? { k, node: match[2] as 'draft' | 'judge' } : undefined;
  };
  const stepOf = (id: StepId): PatternStep | undefined => {
    const at = parse(id);
    if (!at) return undefined;
    return at.node === 'draft'
      ? { id, label: 'drafter', work: { kind: 'agent', agent: 'drafter', input: '[[{{ step_id }}]] Draft iteration {{ iteration }} on {{ topic }}. Feedback: {{ feedback }}' } }
      : { id, label: 'judge', work: { kind: 'agent', agent: 'judge', input: '[[{{ step_id }}]] Judge this draft: {{ draft }}' } };
  };
  /** The iteration the loop is in, and whether it is over: derived from recorded judgements only. */
  const walk = (progress: SessionProgress): { current: number; over: boolean } => {
    for (let k = 1; ; k++) {
      const judged = progress.completed[judgeId(k)];
      if (!judged) return { current: k, over: false };
      if (/\bSTOP\b/.test(judged.response) || k >= maxIterations) return { current: k, over: true };
    }
  };
  const shape = (progress: SessionProgress): ShapeNode[] =>
    Array.from({ length: walk(progress).current }, (_, i) => i + 1).flatMap((k) => [
      { id: draftId(k), label: 'drafter', title: `iteration ${k} draft`, group: `iter-${k}`, after: k > 1 ? [judgeId(k - 1)] : [], approval: false },
      { id: judgeId(k), label: 'judge', title: `iteration ${k} judge`, group: `iter-${k}`, after: [draftId(k)], approval: false },
    ]);
  const firstUnfinished = (progress: SessionProgress) => shape(progress).find((node) => !progress.completed[node.id])?.id;
  return {
    // A plug-in no spec can name: the engine runs any Pattern it is given.
    type: 'revision_loop' as Pattern['type'],
    shape,
    step: (id) => stepOf(id),
    ready(progress) {
      const { current, over } = walk(progress);
      if (over) return [];
      return [stepOf(progress.completed[draftId(current)] ? judgeId(current) : draftId(current))!];
    },
    finished: (progress) => walk(progress).over,
    context(id, progress, variables: Variables) {
      const at = parse(id);
      if (!at) return { ...variables };
      const feedback = progress.completed[judgeId(at.k - 1)]?.response ?? 'none yet';
      return { ...variables, step_id: id, iteration: at.k, feedback, draft: progress.completed[draftId(at.k)]?.response ?? '' };
    },
    artifactContext(progress, variables) {
      const { current } = walk(progress);
      const steps = shape(progress).map((node, index) => ({ index, agent: node.label, response: progress.completed[node.id]?.response ?? '' }));
      return { ...variables, TRACE: '', steps, last_response: progress.completed[draftId(current)]?.response ?? '' };
    },
    reusableBefore(from, progress) {
      const nodes = shape(progress);
      const index = nodes.findIndex((node) => node.id === from);
      if (index < 0) return undefined;
      return nodes.slice(0, index).filter((node) => progress.completed[node.id]).map((node) => node.id);
    },
    firstUnfinished,
  };
}
