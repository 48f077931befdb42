import type { EvaluatorOptimizerPattern, WorkflowSpec } from '../../spec/schema.js';
import { plural } from '../../human-units.js';
import { isObject, isString, type EngineKind } from '../pattern-kind.js';
import type { Pattern, PatternHalt, PatternStep, ShapeNode } from '../pattern.js';
import { reusableInLine } from './line-reuse.js';
import type { SessionProgress } from '../session-progress.js';
import type { StepId } from '../step-id.js';
import { answerGist, answerJson, oncePerEvent, perAnswer } from './answer-json.js';

type Config = EvaluatorOptimizerPattern['config'];

export const draftStep = (iteration: number): StepId => `draft/${iteration}`;
/** The evaluator's try at iteration n: `eval/n`, and `eval/n#2` when its first answer held no score. */
export const evalStep = (iteration: number, attempt = 1): StepId => (attempt === 1 ? `eval/${iteration}` : `eval/${iteration}#${attempt}`);
export const reviewStep = (iteration: number): StepId => `review/${iteration}`;

/** strands-cli re-asks an evaluator whose answer held no score once. */
const evaluatorTries = 2;

/** strands-cli's evaluator input when the spec gives none. */
export const defaultEvaluatorInput = 'Evaluate the following draft and return JSON with score (0-100), issues, and fixes:\n\n{{ draft }}';

/** strands-cli's revise prompt when the spec gives none. */
export const defaultRevisePrompt =
  'Revise the following draft based on evaluator feedback.\n\nDraft:\n{{ draft }}\n\nEvaluation (Score: {{ evaluation.score }}/100):\n' +
  '{% if evaluation.issues %}Issues:\n{% for issue in evaluation.issues %}- {{ issue }}\n{% endfor %}{% endif %}' +
  '{% if evaluation.fixes %}Suggested fixes:\n{% for fix in evaluation.fixes %}- {{ fix }}\n{% endfor %}{% endif %}\nPlease provide an improved version.';

/** A review answer that ends the loop with the draft as it is (strands-cli's words). */
const stopWords = new Set(['stop', 'abort', 'end']);

export interface Evaluation {
  score: number;
  issues: string[];
  fixes: string[];
}

const stringList = (value: unknown): string[] | undefined =>
  value === undefined || value === null ? [] : Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : undefined;

/** An evaluator's answer as JSON `{score: 0-100, issues?: [..], fixes?: [..]}` (strands-cli's EvaluatorDecision), or undefined. */
export function readEvaluation(answer: string): Evaluation | undefined {
  const value = answerJson(answer, 'object', 'score');
  if (!isObject(value)) return undefined;
  const score = typeof value.score === 'string' && value.score.trim() !== '' ? Number(value.score) : value.score;
  const issues = stringList(value.issues);
  const fixes = stringList(value.fixes);
  if (typeof score !== 'number' || !Number.isFinite(score) || score < 0 || score > 100 || !issues || !fixes) return undefined;
  return { score, issues, fixes };
}

interface Round {
  iteration: number;
  draft: string;
  /** The evaluation of this draft, once read; and the step whose answer held it. */
  evaluation?: Evaluation;
  evaluatedBy?: StepId;
}

interface Walk {
  rounds: Round[];
  /** The next step to run, when the loop goes on. */
  next?: PatternStep;
  /** Set once the loop is over: the draft that is the result, and how it ended. */
  result?: { round: Round; accepted: boolean; how: string };
  halt?: PatternHalt;
}

/**
 * strands-cli's `evaluator_optimizer`: the producer writes a draft, the evaluator scores it (JSON
 * `{score, issues, fixes}`), and below `accept.min_score` the producer revises it with the
 * evaluation, up to `accept.max_iters` evaluations. Every draft (`draft/n`), evaluation (`eval/n`,
 * and `eval/n#2` when the first answer held no score) and review (`review/n`) is a step, so a
 * resume reads the recorded scores and continues at the same iteration. The result is the
 * accepted draft — or, past max_iters, the best one, said so (strands-cli fails the run instead).
 */
export function evaluatorOptimizerPattern(config: Config, spec: Pick<WorkflowSpec, 'agents'>): Pattern {
  const { producer, evaluator, accept } = config;
  const maxIters = accept.max_iters;
  const review = config.review_gate;
  // strands-cli sends the producer its own prompt as the first request (rendered with the variables).
  const firstInput = spec.agents?.[producer]?.prompt ?? '';

  const drafting = (iteration: number): PatternStep => ({ id: draftStep(iteration), label: producer, work: { kind: 'agent', agent: producer, input: iteration === 1 ? firstInput : (config.revise_prompt ?? defaultRevisePrompt) } });
  const evaluating = (iteration: number, attempt: number, previous?: string): PatternStep => ({
    id: evalStep(iteration, attempt),
    label: evaluator.agent,
    work: attempt === 1
      ? { kind: 'agent', agent: evaluator.agent, input: evaluator.input ?? defaultEvaluatorInput }
      : {
          kind: 'agent',
          agent: evaluator.agent,
          input: 'Your previous response was not valid JSON. Please return only valid JSON in this exact format: {"score": <0-100>, "issues": ["issue1", ...], "fixes": ["fix1", ...]}\n\nEvaluate this draft:\n\n{{ draft }}',
          append: previous === undefined ? '' : `\n\nYour previous response began: "${answerGist(previous, 300)}"`,
        },
  });
  const reviewing = (iteration: number): PatternStep => ({ id: reviewStep(iteration), label: 'approval', work: { kind: 'approval', approval: review! } });

  const evaluationOf = perAnswer(readEvaluation);
  const walk = oncePerEvent((progress: SessionProgress): Walk => {
    const rounds: Round[] = [];
    for (let iteration = 1; ; iteration++) {
      const draft = progress.completed[draftStep(iteration)];
      if (!draft) return { rounds, next: drafting(iteration) };
      const round: Round = { iteration, draft: draft.response };
      rounds.push(round);
      let lastAnswer: string | undefined;
      for (let attempt = 1; attempt <= evaluatorTries && !round.evaluation; attempt++) {
        const judged = progress.completed[evalStep(iteration, attempt)];
        if (!judged) return { rounds, next: evaluating(iteration, attempt, lastAnswer) };
        lastAnswer = judged.response;
        const evaluation = evaluationOf(evalStep(iteration, attempt), judged.response);
        if (evaluation) {
          round.evaluation = evaluation;
          round.evaluatedBy = evalStep(iteration, attempt);
        }
      }
      if (!round.evaluation) {
        return { rounds, halt: { outcome: 'failed', reason: 'unreadable_answer', message: `the evaluator (${evaluator.agent}) answered without a score twice at iteration ${iteration} ("${answerGist(lastAnswer ?? '')}"); it must answer JSON {"score": 0-100, "issues": [...], "fixes": [...]} — fork the session with a clearer evaluator prompt` } };
      }
      if (round.evaluation.score >= accept.min_score) return { rounds, result: { round, accepted: true, how: `accepted at iteration ${iteration} with score ${round.evaluation.score} (min_score ${accept.min_score})` } };
      if (iteration >= maxIters) {
        const best = rounds.reduce((a, b) => (b.evaluation!.score >= a.evaluation!.score ? b : a));
        return { rounds, result: { round: best, accepted: false, how: `no draft reached min_score ${accept.min_score} in ${plural(maxIters, 'iteration')}: the best, iteration ${best.iteration} with score ${best.evaluation!.score}, is the result` } };
      }
      if (review) {
        const answered = progress.completed[reviewStep(iteration)];
        if (!answered) return { rounds, next: reviewing(iteration) };
        if (stopWords.has(answered.response.trim().toLowerCase())) return { rounds, result: { round, accepted: false, how: `stopped by the review at iteration ${iteration} (score ${round.evaluation.score})` } };
      }
    }
  });

  const shape = (progress: SessionProgress): ShapeNode[] => {
    const state = walk(progress);
    const nodes: ShapeNode[] = [];
    let before: StepId | undefined;
    const add = (id: StepId, label: string, title: string, iteration: number, approval = false) => {
      nodes.push({ id, label, title, group: `iteration ${iteration} of ${maxIters}`, after: before ? [before] : [], approval });
      before = id;
    };
    const known = new Set<StepId>();
    for (const round of state.rounds) {
      add(draftStep(round.iteration), producer, round.iteration === 1 ? 'draft 1' : `revision ${round.iteration}`, round.iteration);
      for (let attempt = 1; attempt <= evaluatorTries; attempt++) {
        const id = evalStep(round.iteration, attempt);
        if (!progress.completed[id] && state.next?.id !== id) break;
        add(id, evaluator.agent, attempt === 1 ? `evaluation ${round.iteration}` : `evaluation ${round.iteration} try ${attempt}`, round.iteration);
        if (progress.completed[id]) nodes.at(-1)!.detail = round.evaluatedBy === id ? `score ${round.evaluation!.score} of ${accept.min_score}` : 'no score in the answer';
        known.add(id);
      }
      if (review && (progress.completed[reviewStep(round.iteration)] || state.next?.id === reviewStep(round.iteration))) add(reviewStep(round.iteration), 'approval', `review ${round.iteration}`, round.iteration, true);
    }
    if (state.next && state.next.id.startsWith('draft/')) {
      const iteration = state.rounds.length + 1;
      add(state.next.id, producer, iteration === 1 ? 'draft 1' : `revision ${iteration}`, iteration);
    }
    return nodes;
  };

  const iterationOf = (id: StepId): number | undefined => {
    const match = /^(?:draft|eval|review)\/([1-9]\d*)(?:#2)?$/.exec(id);
    return match ? Number(match[1]) : undefined;
  };

  return {
    type: 'evaluator_optimizer',
    shape,
    step(id, progress) {
      const iteration = iterationOf(id);
      if (iteration === undefined || iteration > maxIters) return undefined;
      if (id.startsWith('draft/')) return drafting(iteration);
      if (id.startsWith('review/')) return review ? reviewing(iteration) : undefined;
      const attempt = id.endsWith('#2') ? 2 : 1;
      return evaluating(iteration, attempt, attempt === 2 ? progress.completed[evalStep(iteration)]?.response : undefined);
    },
    ready(progress) {
      const { next } = walk(progress);
      return next ? [next] : [];
    },
    finished: (progress) => walk(progress).result !== undefined,
    halted: (progress) => walk(progress).halt,
    context(id, progress, variables) {
      const iteration = iterationOf(id) ?? 1;
      const { rounds } = walk(progress);
      if (id.startsWith('draft/')) {
        if (iteration === 1) return { ...variables };
        // A revision reworks the draft before it with that draft's evaluation.
        const previous = rounds[iteration - 2];
        const reviewed = review ? progress.completed[reviewStep(iteration - 1)] : undefined;
        return { ...variables, draft: previous?.draft ?? '', iteration, evaluation: previous?.evaluation ?? { score: 0, issues: [], fixes: [] }, ...(reviewed ? { hitl_response: reviewed.response } : {}) };
      }
      const round = rounds[iteration - 1];
      if (id.startsWith('review/')) {
        return { ...variables, iteration_index: iteration - 1, iterations: history(rounds), current_draft: round?.draft ?? '', current_evaluation: round?.evaluation ?? null, draft: round?.draft ?? '', evaluation: round?.evaluation ?? null, iteration };
      }
      return { ...variables, draft: round?.draft ?? '', iteration };
    },
    artifactContext(progress, variables) {
      const state = walk(progress);
      const result = state.result;
      const last = state.rounds.at(-1);
      const facts = {
        iterations: state.rounds.length,
        history: history(state.rounds),
        final_score: result?.round.evaluation?.score ?? last?.evaluation?.score ?? null,
        min_score: accept.min_score,
        max_iters: maxIters,
        accepted: result?.accepted ?? false,
        last_evaluation: last?.evaluation ?? null,
      };
      // strands-cli's examples read these flat and as execution_context.<key>.
      return { ...variables, TRACE: '', ...facts, execution_context: facts, last_response: result?.round.draft ?? last?.draft ?? '' };
    },
    outcome: (progress) => walk(progress).result?.how,
    reusableBefore: (from, progress) => reusableInLine(shape(progress), from, progress),
    firstUnfinished: (progress) => shape(progress).find((node) => !progress.completed[node.id])?.id,
  };
}

/** strands-cli's iteration records, as artifacts and the review see them. */
function history(rounds: readonly Round[]) {
  return rounds.filter((round) => round.evaluation).map((round) => ({
    iteration: round.iteration,
    score: round.evaluation!.score,
    issues: round.evaluation!.issues,
    fixes: round.evaluation!.fixes,
    draft: round.draft,
    draft_preview: round.draft.slice(0, 100),
    evaluation: { ...round.evaluation!, feedback: round.evaluation!.issues.join('; ') },
  }));
}

export const evaluatorOptimizerKind: EngineKind<EvaluatorOptimizerPattern> = {
  plugin: evaluatorOptimizerPattern,
  hasShape: (config) =>
    isString(config.producer) && isObject(config.evaluator) && isString(config.evaluator.agent) && isObject(config.accept) && typeof config.accept.min_score === 'number' && typeof config.accept.max_iters === 'number',
  words: {
    lane: ['iteration', 'iterations'],
    laneLabel: (group) => group,
    // The header is drawn once, at the start: it says what the run does, not a count that grows.
    shapeWords: () => 'drafts scored until one is accepted',
  },
  numbered: false,
};
