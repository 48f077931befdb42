import { z } from '../../validation/z.js';
import { plural } from '../../human-units.js';
import { isAgentStep, isApprovalStep } from '../chain-steps.js';
import { agentProblem, checkSteps } from '../pattern-checks.js';
import { configPath, stepFields, type PatternOf, type SpecKind, type SpecPath } from '../pattern-kind.js';
import { approvalStepSchema, chainStepSchema } from '../step-schemas.js';
import { chainStepScope, scope } from '../template-scopes.js';
import type { TemplateScope } from '../template-scan.js';

/** A router agent picks one of `routes`; the chosen route's `then` steps run as a chain. */
export const routingSchema = z.strictObject({
  type: z.literal('routing'),
  config: z.strictObject({
    router: z.strictObject({
      agent: z.string(),
      input: z.string().default(''),
      /** Tries after the first when the answer names no route the spec has (strands-cli: 2, so 3 tries). */
      max_retries: z.number().int().min(0).max(20).default(2),
      /** A person confirms the choice: approve it, or answer route:<name> to take another. */
      review_router: approvalStepSchema.optional(),
    }),
    routes: z.record(z.string(), z.strictObject({ then: z.array(chainStepSchema).default([]) }), { error: (issue) => (issue.input === undefined ? 'a routing pattern needs its routes here: route name → { then: [steps] }' : undefined) }),
  }),
});

type RoutingPattern = PatternOf<'routing'>;
const routerNames = ['router'];

function routeStepScope(pattern: RoutingPattern, variables: readonly string[], route: string, step: number): TemplateScope {
  const steps = pattern.config.routes[route]?.then ?? [];
  const hitl = steps.slice(0, step).some((s) => isApprovalStep(s));
  const base = chainStepScope(steps, [...variables, ...routerNames, ...(hitl ? ['hitl_response'] : [])], step);
  const where = `route '${route}' step ${step + 1}`;
  return { ...base, stepsNote: step === 0 ? `${where} is the route's first step, so no step of it has run before (the router's answer is router.response)` : `${where} runs after steps[0]${step > 1 ? `…steps[${step - 1}]` : ''} of its route only` };
}

/**
 * - router input: variables (the router decides before anything else runs).
 * - route step: like a chain step within its route — `steps[n]` before it, `last_response`, its
 *   `vars`, `hitl_response` after a hitl step — plus `router.chosen_route` / `router.response`.
 * - artifacts: variables, `last_response` (the route's last step), `steps`, `router`, `chosen_route`, `router_agent`.
 */
export const routingKind: SpecKind<RoutingPattern> = {
  names: ['steps', 'last_response', 'hitl_response', 'TRACE', ...routerNames, 'chosen_route', 'router_agent', 'execution_context'],
  check(spec, pattern, error) {
    const at: SpecPath = [...configPath];
    const problem = agentProblem(spec, pattern.config.router.agent, 'the router');
    if (problem) error([...at, 'router', 'agent'], problem);
    const routes = Object.entries(pattern.config.routes);
    if (routes.length === 0) error([...at, 'routes'], 'a routing pattern needs at least one route: route name → { then: [steps] }');
    for (const [name, route] of routes) {
      // A route's steps are named `<route>/<n>` in every view and flag (engine/step-names.ts): '' would name them `/1`, which nothing takes.
      if (name.trim() === '') error([...at, 'routes', name], `a route needs a name: its steps are named after it (faq/1, faq/2), and ${JSON.stringify(name)} names none`);
      if (route.then.length === 0) error([...at, 'routes', name], `route '${name}' has no steps; give it then: [steps] (an agent step, or a type: hitl step)`);
      checkSteps(spec, route.then, [...at, 'routes', name, 'then'], (i) => `route '${name}' step ${i + 1}`, error);
    }
  },
  *templateFields(pattern) {
    yield [[...configPath, 'router', 'input'], pattern.config.router.input];
    if (pattern.config.router.review_router) yield* stepFields(pattern.config.router.review_router, [...configPath, 'router', 'review_router']);
    for (const [name, route] of Object.entries(pattern.config.routes)) {
      for (const [i, step] of route.then.entries()) yield* stepFields(step, [...configPath, 'routes', name, 'then', i]);
    }
  },
  fieldScopes(_spec, pattern, path, variables) {
    if (path[2] === 'router') return [scope(path[3] === 'review_router' ? [...variables, ...routerNames] : variables)];
    return [routeStepScope(pattern, variables, String(path[3]), Number(path[5]))];
  },
  agentScopes(_spec, pattern, agent, variables) {
    const scopes: TemplateScope[] = pattern.config.router.agent === agent ? [scope(variables)] : [];
    for (const [name, route] of Object.entries(pattern.config.routes)) {
      for (const [i, step] of route.then.entries()) if (isAgentStep(step) && step.agent === agent) scopes.push(routeStepScope(pattern, variables, name, i));
    }
    return scopes;
  },
  artifactScope(_spec, pattern, variables) {
    const longest = Math.max(0, ...Object.values(pattern.config.routes).map((route) => route.then.length));
    return scope([...variables, 'last_response', 'TRACE', 'steps', ...routerNames, 'chosen_route', 'router_agent', 'execution_context'], { stepsAvailable: longest, stepsNote: `artifacts see the steps of the route taken (the longest route has ${plural(longest, 'step')})` });
  },
  describe(_spec, pattern) {
    const routes = Object.entries(pattern.config.routes).map(([name, route]) => `${name} ${plural(route.then.length, 'step')}`);
    return `routing, router ${pattern.config.router.agent} (${plural(pattern.config.router.max_retries + 1, 'try', 'tries')}) picks one of ${plural(routes.length, 'route')}: ${routes.join(', ')}${pattern.config.router.review_router ? ', reviewed by a person' : ''}`;
  },
};
