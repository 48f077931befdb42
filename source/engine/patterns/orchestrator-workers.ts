import type { OrchestratorWorkersPattern } from '../../spec/schema.js';
import { isApprovalStep, stepLabel } from '../../spec/chain-steps.js';
import { plural } from '../../human-units.js';
import { isObject, isStepShape, isString, type EngineKind } from '../pattern-kind.js';
import type { Pattern, PatternHalt, PatternStep, ShapeNode } from '../pattern.js';
import type { SessionProgress } from '../session-progress.js';
import type { StepId } from '../step-id.js';
import type { Variables } from '../template-context.js';
import { answerGist, answerJson, oncePerEvent, perAnswer } from './answer-json.js';
import { joinedAnswers } from './joined-answers.js';
import { stepWork } from './chain.js';

type Config = OrchestratorWorkersPattern['config'];

/** Round r's plan, try a: `plan`, `plan#2` … in round 1; `plan@2`, `plan@2#2` … later. */
export const planStep = (round: number, attempt = 1): StepId => `plan${round === 1 ? '' : `@${round}`}${attempt === 1 ? '' : `#${attempt}`}`;
/** Worker i of round r (0-based, as strands-cli numbers them): `worker/0`, `worker@2/0`. */
export const workerStep = (round: number, index: number): StepId => `worker${round === 1 ? '' : `@${round}`}/${index}`;
const decompositionStep = (round: number): StepId => `decomposition_review${round === 1 ? '' : `@${round}`}`;
export const reduceReviewStep: StepId = 'reduce_review';
export const reduceStep: StepId = 'reduce';
export const writeupStep: StepId = 'writeup';

/** strands-cli asks the orchestrator up to three times for a plan it can read. */
const planTries = 3;

/**
 * The most subtasks one round's plan may hold: each is a paid model call. A plan of 200,000 (an
 * answer of 1 MiB) crashed the run with a stack trace and would have started as many calls.
 */
export const maxSubtasks = 1000;

/** strands-cli's request to the orchestrator (its own prompt, the system prompt, holds the task). */
function firstPlanRequest(variables: Variables): string {
  return `You are an orchestrator agent. Break down the following task into subtasks for worker agents to execute.

Respond with ONLY a JSON array of tasks. Each task should have a "task" field with the description.

Example format:
[
  {"task": "Subtask 1 description"},
  {"task": "Subtask 2 description"},
  {"task": "Subtask 3 description"}
]

If there are no subtasks needed, return an empty array: []

User input variables:
${JSON.stringify(variables, null, 2)}

Now break down the task into subtasks:`;
}

const retryRequest = (previous: string) => `Your previous response was not valid JSON. Please respond with ONLY a JSON array of tasks.

Expected format:
[
  {"task": "description of subtask 1"},
  {"task": "description of subtask 2"}
]

Do not include any text before or after the JSON array. If there are no subtasks, return an empty array: []

Previous response that failed to parse:
${previous.slice(0, 500)}`;

function nextRoundRequest(round: number, results: readonly Worker[]): string {
  const done = joinedAnswers(results.map((worker, i) => `Subtask ${i + 1}: ${worker.task}\nResult:\n${worker.response}`), '\n\n');
  return `Round ${round - 1} of the workers finished. Their results:\n\n${done}\n\nIf the task needs more work, respond with ONLY a JSON array of further subtasks in the same format ([{"task": "…"}]); if it is done, respond with an empty array: []`;
}

/**
 * An orchestrator's plan: a JSON array of subtasks (objects with `task`, or plain strings), or one
 * object; whole, fenced or inside prose (strands-cli's reading). Undefined when none can be read.
 */
export function readPlan(answer: string): string[] | undefined {
  const value = answerJson(answer, 'any');
  const list = Array.isArray(value) ? value : isObject(value) ? [value] : undefined;
  if (!list) return undefined;
  // strands-cli sends a worker `task`, or the whole object as text when it has none.
  return list.map((item) => (typeof item === 'string' ? item : isObject(item) && typeof item.task === 'string' ? item.task : JSON.stringify(item)));
}

interface Worker {
  id: StepId;
  round: number;
  task: string;
  response: string;
  done: boolean;
}

interface Walk {
  /** Each round's subtasks, once its plan was read. */
  rounds: { round: number; plan: StepId; tasks: string[]; tries: number }[];
  workers: Worker[];
  next: PatternStep[];
  halt?: PatternHalt;
  /** True once reduce and writeup (those configured) are done. */
  done: boolean;
}

/**
 * strands-cli's `orchestrator_workers`: the orchestrator plans subtasks (a JSON list, asked again
 * up to three times when unreadable), workers from `worker_template` carry them out — at most
 * `limits.max_workers` at once — then the optional `reduce` and `writeup` steps combine them.
 * The plan is a step's recorded answer, so it is read back, never asked again; a crash with workers
 * in flight runs only the unfinished ones. With `limits.max_rounds` above 1 the orchestrator sees
 * each round's results and may plan another (an empty list ends it); strands-cli runs one round.
 * `decomposition_review` and `reduce_review` are approval steps before the workers and the reduce.
 */
export function orchestratorWorkersPattern(config: Config): Pattern {
  const orchestrator = config.orchestrator;
  const maxRounds = orchestrator.limits?.max_rounds ?? 1;
  const maxWorkers = orchestrator.limits?.max_workers ?? Number.POSITIVE_INFINITY;
  const workerAgent = config.worker_template.agent;
  const tail = [
    ...(config.reduce && config.reduce_review ? [{ id: reduceReviewStep, step: config.reduce_review }] : []),
    ...(config.reduce ? [{ id: reduceStep, step: config.reduce }] : []),
    ...(config.writeup ? [{ id: writeupStep, step: config.writeup }] : []),
  ];

  const planning = (round: number, attempt: number, progress: SessionProgress, earlier: readonly Worker[]): PatternStep => {
    const previous = attempt > 1 ? progress.completed[planStep(round, attempt - 1)]?.response ?? '' : undefined;
    // The request is built from data (variables, answers): sent as it is, never rendered as a template.
    const request = previous !== undefined ? retryRequest(previous) : round === 1 ? undefined : nextRoundRequest(round, earlier.filter((w) => w.round === round - 1));
    return { id: planStep(round, attempt), label: orchestrator.agent, work: { kind: 'agent', agent: orchestrator.agent, input: '', append: request ?? firstPlanRequest } };
  };
  const working = (worker: Pick<Worker, 'id' | 'task'>): PatternStep => ({ id: worker.id, label: workerAgent, work: { kind: 'agent', agent: workerAgent, input: '', append: worker.task } });

  const planOf = perAnswer(readPlan);
  const walk = oncePerEvent((progress: SessionProgress): Walk => {
    const rounds: Walk['rounds'] = [];
    const workers: Worker[] = [];
    for (let round = 1; round <= maxRounds; round++) {
      let tasks: string[] | undefined;
      let tries = 0;
      for (let attempt = 1; attempt <= planTries && !tasks; attempt++) {
        const answer = progress.completed[planStep(round, attempt)];
        if (!answer) return { rounds, workers, next: [planning(round, attempt, progress, workers)], done: false };
        tries = attempt;
        tasks = planOf(planStep(round, attempt), answer.response);
        // A later round's plan that cannot be read ends the rounds: the work done so far goes on to reduce.
        if (!tasks && attempt === planTries && round > 1) tasks = [];
        if (!tasks && attempt === planTries) {
          return { rounds, workers, next: [], done: false, halt: { outcome: 'failed', reason: 'unreadable_answer', message: `the orchestrator (${orchestrator.agent}) answered no readable plan in ${planTries} tries ("${answerGist(answer.response)}"); it must answer a JSON list such as [{"task": "…"}] — fork the session with a clearer orchestrator prompt` } };
        }
      }
      if (tasks!.length > maxSubtasks) {
        const count = (n: number) => n.toLocaleString('en-US');
        return { rounds, workers, next: [], done: false, halt: { outcome: 'failed', reason: 'pattern_limit', message: `the orchestrator (${orchestrator.agent}) planned ${count(tasks!.length)} subtasks, past the limit of ${count(maxSubtasks)} for one round (each is a model call); fork the session with an orchestrator prompt that asks for fewer` } };
      }
      rounds.push({ round, plan: planStep(round, tries), tasks: tasks!, tries });
      // An empty plan after the first round: the orchestrator says the work is done.
      if (round > 1 && tasks!.length === 0) break;
      if (config.decomposition_review && !progress.completed[decompositionStep(round)]) {
        return { rounds, workers, next: [{ id: decompositionStep(round), label: 'approval', work: { kind: 'approval', approval: config.decomposition_review } }], done: false };
      }
      const these = tasks!.map((task, index): Worker => {
        const id = workerStep(round, index);
        const done = progress.completed[id];
        return { id, round, task, response: done?.response ?? '', done: done !== undefined };
      });
      for (const worker of these) workers.push(worker);
      const open = these.filter((worker) => !worker.done);
      // A window of max_workers unfinished workers in plan order: as one finishes, the next may start.
      if (open.length) return { rounds, workers, next: open.slice(0, Number.isFinite(maxWorkers) ? maxWorkers : open.length).map(working), done: false };
    }
    for (const { id, step } of tail) {
      if (!progress.completed[id]) return { rounds, workers, next: [stepWork(step, id)], done: false };
    }
    return { rounds, workers, next: [], done: true };
  });

  const shape = (progress: SessionProgress): ShapeNode[] => {
    const state = walk(progress);
    const nodes: ShapeNode[] = [];
    let before: StepId[] = [];
    for (const round of state.rounds) {
      for (let attempt = 1; attempt <= round.tries; attempt++) {
        const id = planStep(round.round, attempt);
        nodes.push({ id, label: orchestrator.agent, title: `${round.round === 1 ? 'plan' : `plan of round ${round.round}`}${attempt > 1 ? ` try ${attempt}` : ''}`, group: `round ${round.round}`, after: before, approval: false, ...(attempt === round.tries ? { detail: plural(round.tasks.length, 'subtask') } : { detail: 'no plan in the answer' }) });
        before = [id];
      }
      if (config.decomposition_review && (progress.completed[decompositionStep(round.round)] || state.next.some((step) => step.id === decompositionStep(round.round)))) {
        nodes.push({ id: decompositionStep(round.round), label: 'approval', title: `review of plan ${round.round}`, group: `round ${round.round}`, after: before, approval: true });
        before = [decompositionStep(round.round)];
      }
      const these = state.workers.filter((worker) => worker.round === round.round);
      nodes.push(...these.map((worker, index) => ({ id: worker.id, label: workerAgent, title: `worker ${index + 1}${round.round > 1 ? ` of round ${round.round}` : ''}`, group: `round ${round.round}`, after: before, approval: false, detail: `task: ${answerGist(worker.task, 60)}` })));
      if (these.length) before = these.map((worker) => worker.id);
    }
    // The plan being asked (not yet read) is a node too, so the views show it running.
    for (const step of state.next) {
      if (!nodes.some((node) => node.id === step.id) && (step.id.startsWith('plan') || step.id.startsWith('decomposition_review'))) {
        const round = Number(/@(\d+)/.exec(step.id)?.[1] ?? 1);
        nodes.push({ id: step.id, label: step.label, title: step.id.startsWith('plan') ? `plan${round > 1 ? ` of round ${round}` : ''}` : `review of plan ${round}`, group: `round ${round}`, after: before, approval: step.work.kind === 'approval' });
      }
    }
    // Reduce and writeup once every round's plan and workers are done.
    const planning = state.next.some((step) => step.id.startsWith('plan') || step.id.startsWith('decomposition_review'));
    if (!state.halt && !planning && state.rounds.length > 0 && state.workers.every((worker) => worker.done)) {
      for (const { id, step } of tail) {
        nodes.push({ id, label: stepLabel(step), title: id === reduceReviewStep ? 'review before reduce' : id, group: null, after: before, approval: isApprovalStep(step) });
        before = [id];
      }
    }
    return nodes;
  };

  const workersContext = (state: Walk) => state.workers.filter((worker) => worker.done).map((worker) => ({ response: worker.response, status: 'success', task: worker.task, tokens: 0 }));
  const shared = (progress: SessionProgress, variables: Variables) => {
    const state = walk(progress);
    const workers = workersContext(state);
    const reviewed = [config.reduce_review ? progress.completed[reduceReviewStep] : undefined, config.decomposition_review ? progress.completed[decompositionStep(1)] : undefined].find(Boolean);
    return {
      state,
      context: {
        workers,
        num_workers: workers.length,
        worker_count: workers.length,
        round_count: state.rounds.filter((round) => round.tasks.length > 0 || round.round === 1).length,
        ...variables,
        ...(reviewed ? { hitl_response: reviewed.response } : {}),
        ...(progress.completed[reduceStep] ? { reduce_response: progress.completed[reduceStep]!.response } : {}),
        ...(progress.completed[writeupStep] ? { writeup_response: progress.completed[writeupStep]!.response } : {}),
      },
    };
  };

  const stepOf = (id: StepId, progress: SessionProgress): PatternStep | undefined => {
    const state = walk(progress);
    const known = state.next.find((step) => step.id === id);
    if (known) return known;
    const worker = state.workers.find((w) => w.id === id);
    if (worker) return working(worker);
    const at = tail.find((entry) => entry.id === id);
    if (at) return stepWork(at.step, id);
    const plan = /^plan(?:@([2-9]|[1-9]\d+))?(?:#([23]))?$/.exec(id);
    if (plan) return planning(Number(plan[1] ?? 1), Number(plan[2] ?? 1), progress, state.workers);
    return undefined;
  };

  return {
    type: 'orchestrator_workers',
    shape,
    step: stepOf,
    ready: (progress) => walk(progress).next,
    finished: (progress) => walk(progress).done,
    halted: (progress) => walk(progress).halt,
    context(id, progress, variables) {
      if (id.startsWith('plan')) return { ...variables };
      if (id.startsWith('worker')) return { ...variables };
      const { state, context } = shared(progress, variables);
      if (id.startsWith('decomposition_review')) {
        const round = state.rounds.at(-1);
        return { ...variables, orchestrator_response: JSON.stringify((round?.tasks ?? []).map((task) => ({ task })), null, 2), subtasks: (round?.tasks ?? []).map((task) => ({ task })), task_count: round?.tasks.length ?? 0 };
      }
      const step = tail.find((entry) => entry.id === id)?.step;
      // What came last before this step: the reduce's answer for the writeup, else every worker's.
      const aggregate = joinedAnswers(context.workers.map((worker, i) => `Worker ${i}: ${worker.response}`), '\n\n');
      const last = (id === writeupStep ? progress.completed[reduceStep]?.response : undefined) || aggregate;
      return { ...context, last_response: last, ...(step && !isApprovalStep(step) ? step.vars : undefined) };
    },
    artifactContext(progress, variables) {
      const { context } = shared(progress, variables);
      const aggregate = joinedAnswers(context.workers.map((worker, i) => `Worker ${i}: ${worker.response}`), '\n\n');
      const last = progress.completed[writeupStep]?.response || progress.completed[reduceStep]?.response || aggregate;
      // strands-cli's examples read these flat and as execution_context.<key>.
      return { ...context, TRACE: '', execution_context: context, last_response: last };
    },
    reusableBefore(from, progress) {
      const nodes = shape(progress);
      const target = nodes.find((node) => node.id === from);
      if (!target) return undefined;
      // Workers of one round are independent of each other; everything else reads what came before it.
      const at = nodes.indexOf(target);
      const sameRoundWorkers = from.startsWith('worker') ? nodes.filter((node) => node.group === target.group && node.id.startsWith('worker') && node.id !== from) : [];
      return [...nodes.slice(0, at).filter((node) => !sameRoundWorkers.includes(node)), ...sameRoundWorkers].map((node) => node.id).filter((id) => progress.completed[id]);
    },
    firstUnfinished: (progress) => shape(progress).find((node) => !progress.completed[node.id])?.id,
  };
}

export const orchestratorWorkersKind: EngineKind<OrchestratorWorkersPattern> = {
  plugin: orchestratorWorkersPattern,
  hasShape: (config) =>
    isObject(config.orchestrator) && isString(config.orchestrator.agent) && isObject(config.worker_template) && isString(config.worker_template.agent) &&
    [config.reduce, config.writeup, config.decomposition_review, config.reduce_review].every((step) => step === undefined || isStepShape(step)),
  words: {
    lane: ['round', 'rounds'],
    laneLabel: (group) => group,
    glyphsByLane: true,
    // The header is drawn once, at the start: it says what the run does, not a count that grows.
    shapeWords: () => 'workers as the plan says',
  },
  numbered: false,
  zeroBasedTail: true,
};
