import type { ChainStep, RoutingPattern } from '../../spec/schema.js';
import { isApprovalStep, stepLabel } from '../../spec/chain-steps.js';
import { plural } from '../../human-units.js';
import { isObject, isStepShape, isString, type EngineKind } from '../pattern-kind.js';
import type { Pattern, PatternHalt, PatternStep, ShapeNode } from '../pattern.js';
import { reusableInLine } from './line-reuse.js';
import type { SessionProgress } from '../session-progress.js';
import type { StepId } from '../step-id.js';
import { answerGist, answerJson, oncePerEvent, perAnswer } from './answer-json.js';
import { stepRecords, stepWork } from './chain.js';

type Config = RoutingPattern['config'];

/** The router's n-th try: `router`, then `router#2`, `router#3` … (a route step's id always holds a `/`). */
export const routerStep = (attempt: number): StepId => (attempt === 1 ? 'router' : `router#${attempt}`);
/** The optional review of the router's choice (`router.review_router`). */
export const reviewStep: StepId = 'review_router';
const routeStep = (route: string, index: number): StepId => `${route}/${index}`;

const answerFormat = 'Respond with valid JSON: {"route": "<route_name>"}';

/** A route name the router answered, as messages and requests name it: a model may answer a million characters. */
const namedRoute = (route: string): string => answerGist(route, 60);

/** What one router answer says: a route it names (known or not), or nothing readable. */
export function readRoute(answer: string): string | undefined {
  const value = answerJson(answer, 'object', 'route') as Record<string, unknown> | undefined;
  return typeof value?.route === 'string' ? value.route : undefined;
}

/** The route a review's answer keeps or picks: "approved" keeps it; "route:<name>" or a route's name picks that one. */
function reviewedRoute(answer: string, chosen: string, routes: readonly string[]): string | undefined {
  const text = answer.trim();
  if (text === '' || text.toLowerCase() === 'approved') return chosen;
  const named = text.toLowerCase().startsWith('route:') ? text.slice('route:'.length).trim() : text;
  return routes.find((route) => route === named) ?? routes.find((route) => route.toLowerCase() === named.toLowerCase());
}

interface Walk {
  /** Router tries completed, in order, and the one to ask next (when none chose yet). */
  tries: number;
  /** The route the router chose, and the try that chose it. */
  chosen?: { route: string; by: StepId; response: string };
  /** The route run: the chosen one, or the one the review picked. */
  route?: string;
  halt?: PatternHalt;
}

/**
 * strands-cli's `routing`: a router agent picks one of `routes` and that route's `then` steps run
 * as a chain. The router's answer is read as JSON `{"route": …}` (whole, fenced or inside prose);
 * an answer that names no route, or one the spec lacks, is asked again up to `max_retries` more
 * times, each try a step of its own (`router`, `router#2` …) — so a resume reads the recorded
 * answers and never asks the router again. Route steps have ids `<route>/<n>` and see the route's
 * `steps[n]`, `last_response`, `router.chosen_route` / `router.response` and `hitl_response`.
 */
export function routingPattern(config: Config): Pattern {
  const routes = Object.keys(config.routes);
  const router = config.router;
  const maxTries = router.max_retries + 1;
  const review = router.review_router;
  const steps = (route: string): readonly ChainStep[] => config.routes[route]?.then ?? [];
  const ids = (route: string) => steps(route).map((_, index) => routeStep(route, index));

  const routeOf = perAnswer(readRoute);
  const walk = oncePerEvent((progress: SessionProgress): Walk => {
    let tries = 0;
    let chosen: Walk['chosen'];
    let unreadable = '';
    for (let attempt = 1; attempt <= maxTries; attempt++) {
      const done = progress.completed[routerStep(attempt)];
      if (!done) break;
      tries = attempt;
      const route = routeOf(routerStep(attempt), done.response);
      if (route !== undefined && routes.includes(route)) {
        chosen = { route, by: routerStep(attempt), response: done.response };
        break;
      }
      unreadable = route === undefined ? `no route in its answer ("${answerGist(done.response)}")` : `route '${namedRoute(route)}', which the spec does not have (routes: ${routes.join(', ')})`;
    }
    if (!chosen) {
      if (tries < maxTries) return { tries };
      return { tries, halt: { outcome: 'failed', reason: 'unreadable_answer', message: `the router (${router.agent}) named ${unreadable} on each of its ${plural(maxTries, 'try', 'tries')} (router.max_retries ${router.max_retries}); fork the session with a clearer router prompt or more retries` } };
    }
    if (!review) return { tries, chosen, route: chosen.route };
    const answered = progress.completed[reviewStep];
    if (!answered) return { tries, chosen };
    const route = reviewedRoute(answered.response, chosen.route, routes);
    if (route === undefined) return { tries, chosen, halt: { outcome: 'failed', reason: 'unreadable_answer', message: `the review of the router's choice answered "${answerGist(answered.response)}": approve it, or answer route:<name> with one of ${routes.join(', ')}` } };
    return { tries, chosen, route };
  });

  const routerWork = (attempt: number, progress: SessionProgress): PatternStep => {
    const previous = attempt > 1 ? progress.completed[routerStep(attempt - 1)] : undefined;
    const named = previous ? readRoute(previous.response) : undefined;
    const again = !previous ? ''
      : named === undefined ? `\n\nYour previous answer named no route ("${answerGist(previous.response, 300)}").`
      : `\n\nYour previous answer chose '${namedRoute(named)}', which is not a route. Valid routes: ${routes.join(', ')}.`;
    return { id: routerStep(attempt), label: router.agent, work: { kind: 'agent', agent: router.agent, input: router.input, append: `${again}\n\n${again ? 'Respond with ONLY valid JSON: {"route": "<route_name>"}' : answerFormat}` } };
  };

  const shape = (progress: SessionProgress): ShapeNode[] => {
    const state = walk(progress);
    const asked = Math.max(1, state.chosen || state.halt ? state.tries : state.tries + 1);
    const nodes: ShapeNode[] = [];
    for (let attempt = 1; attempt <= asked; attempt++) {
      const id = routerStep(attempt);
      const answer = progress.completed[id];
      const named = answer ? routeOf(id, answer.response) : undefined;
      const detail = !answer ? undefined
        : state.chosen?.by === id ? `chose ${state.chosen.route} (not taken: ${routes.filter((r) => r !== state.chosen!.route).join(', ') || 'none'})`
        : named === undefined ? 'named no route' : `'${namedRoute(named)}' is no route`;
      nodes.push({ id, label: router.agent, title: attempt === 1 ? 'router' : `router try ${attempt}`, group: null, after: attempt === 1 ? [] : [routerStep(attempt - 1)], approval: false, ...(detail ? { detail } : {}) });
    }
    if (review && state.chosen) nodes.push({ id: reviewStep, label: 'approval', title: 'router review', group: null, after: [state.chosen.by], approval: true });
    if (state.route !== undefined) {
      const route = state.route;
      const before = review ? reviewStep : state.chosen!.by;
      nodes.push(...steps(route).map((step, index) => ({ id: routeStep(route, index), label: stepLabel(step), title: `${route} step ${index + 1}`, group: route, after: [index === 0 ? before : routeStep(route, index - 1)], approval: isApprovalStep(step) })));
    }
    return nodes;
  };

  const locate = (id: StepId): { route: string; index: number } | undefined => {
    const slash = id.lastIndexOf('/');
    if (slash < 0) return undefined;
    const route = id.slice(0, slash);
    const index = Number(id.slice(slash + 1));
    return routes.includes(route) && Number.isInteger(index) && index >= 0 && index < steps(route).length ? { route, index } : undefined;
  };
  const routerAttempt = (id: StepId): number | undefined => {
    const match = /^router(?:#([2-9]|[1-9]\d+))?$/.exec(id);
    if (!match) return undefined;
    const attempt = match[1] ? Number(match[1]) : 1;
    return attempt <= maxTries ? attempt : undefined;
  };
  const routerContext = (progress: SessionProgress, route: string | undefined) => {
    const state = walk(progress);
    return state.chosen ? { router: { chosen_route: route ?? state.chosen.route, response: state.chosen.response } } : {};
  };

  return {
    type: 'routing',
    shape,
    step(id, progress) {
      const attempt = routerAttempt(id);
      if (attempt !== undefined) return routerWork(attempt, progress);
      if (id === reviewStep) return review ? { id, label: 'approval', work: { kind: 'approval', approval: review } } : undefined;
      const at = locate(id);
      return at ? stepWork(steps(at.route)[at.index]!, id) : undefined;
    },
    ready(progress) {
      const state = walk(progress);
      if (state.halt) return [];
      if (!state.chosen) return [routerWork(state.tries + 1, progress)];
      if (state.route === undefined) return review && !progress.completed[reviewStep] ? [{ id: reviewStep, label: 'approval', work: { kind: 'approval', approval: review } }] : [];
      const next = ids(state.route).find((id) => !progress.completed[id]);
      return next === undefined ? [] : [stepWork(steps(state.route)[locate(next)!.index]!, next)];
    },
    finished(progress) {
      const state = walk(progress);
      return state.route !== undefined && ids(state.route).every((id) => progress.completed[id]);
    },
    halted: (progress) => walk(progress).halt,
    context(id, progress, variables) {
      const at = locate(id);
      if (!at) return { ...variables, ...(id === reviewStep ? routerContext(progress, undefined) : {}) };
      const route = ids(at.route);
      const earlier = route.slice(0, at.index);
      const records = stepRecords(earlier, progress);
      const config = steps(at.route)[at.index];
      const hitl = earlier.filter((step, i) => isApprovalStep(steps(at.route)[i]!) && progress.completed[step]).at(-1);
      return {
        ...variables,
        ...routerContext(progress, at.route),
        steps: records,
        last_response: records.at(-1)?.response ?? '',
        ...(hitl ? { hitl_response: progress.completed[hitl]!.response } : {}),
        ...(config && !isApprovalStep(config) ? config.vars : undefined),
      };
    },
    artifactContext(progress, variables) {
      const state = walk(progress);
      const records = state.route === undefined ? [] : stepRecords(ids(state.route), progress);
      const facts = { steps: records, chosen_route: state.route ?? '', router_agent: router.agent };
      // strands-cli's examples read these flat and as execution_context.<key>.
      return { ...variables, TRACE: '', ...routerContext(progress, state.route), ...facts, execution_context: facts, last_response: records.at(-1)?.response ?? '' };
    },
    reusableBefore: (from, progress) => reusableInLine(shape(progress), from, progress),
    firstUnfinished: (progress) => shape(progress).find((node) => !progress.completed[node.id])?.id,
  };
}

const isRoute = (route: unknown) => isObject(route) && Array.isArray(route.then) && route.then.every(isStepShape);

export const routingKind: EngineKind<RoutingPattern> = {
  plugin: routingPattern,
  hasShape: (config) =>
    isObject(config.router) && isString(config.router.agent) && typeof config.router.max_retries === 'number' && isObject(config.routes) && Object.values(config.routes).every(isRoute),
  words: {
    lane: ['route', 'routes'],
    laneLabel: (group) => `route ${group}`,
    // The header is drawn once, at the start (a resume's may know the route already).
    shapeWords(steps) {
      const route = steps.find((step) => step.group !== null)?.group;
      return route ? `router, then route ${route} (${plural(steps.filter((step) => step.group !== null).length, 'step')})` : 'a router, then the route it picks';
    },
  },
  numbered: false,
  zeroBasedTail: true,
};
