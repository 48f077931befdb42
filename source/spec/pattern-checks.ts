import type { ChainStep, WorkflowSpec } from './schema.js';
import { isApprovalStep } from './chain-steps.js';
import { closestName } from './template-scan.js';
import type { PathReport, SpecPath } from './pattern-kind.js';
import { specKindOf } from './pattern-kinds.js';

export type { PathReport };

/** " (did you mean 'x'?)" when a candidate is close to `name`. */
export function suggest(name: string, candidates: Iterable<string>): string {
  const close = closestName(name, candidates);
  return close ? ` (did you mean '${close}'?)` : '';
}

/** Why `who` cannot use `agent`, or undefined when the spec defines it. */
export function agentProblem(spec: WorkflowSpec, agent: string, who: string): string | undefined {
  const agents = Object.keys(spec.agents);
  if (spec.agents[agent]) return undefined;
  return `${who} uses agent '${agent}', which is not defined under agents (defined: ${agents.join(', ') || 'none'})${suggest(agent, agents)}`;
}

/** The agents of a list of steps (approvals have none), each one that is not defined reported at its step. */
export function checkSteps(spec: WorkflowSpec, steps: readonly ChainStep[], at: SpecPath, who: (i: number) => string, error: PathReport): void {
  for (const [i, step] of steps.entries()) {
    if (isApprovalStep(step)) continue;
    const problem = agentProblem(spec, step.agent, who(i));
    if (problem) error([...at, i, 'agent'], problem);
  }
}

/** The first index of each id used more than once, reported at every later use. */
export function checkUniqueIds(ids: readonly string[], at: (i: number) => SpecPath, what: string, error: PathReport, readAs = `${what === 'task' ? 'tasks' : what === 'branch' ? 'branches' : `${what}s`}.<id>`): void {
  const first = new Map<string, number>();
  for (const [i, id] of ids.entries()) {
    const earlier = first.get(id);
    if (earlier === undefined) first.set(id, i);
    else error(at(i), `${what} id '${id}' is already used by ${what} ${earlier}; give each ${what} its own id (templates read ${readAs})`);
  }
}

/** What the schema cannot say about a pattern: agents that exist, ids unique, references that resolve. */
export function checkPattern(spec: WorkflowSpec, error: PathReport, warn: PathReport): void {
  specKindOf(spec.pattern).check(spec, spec.pattern, error, warn);
}
