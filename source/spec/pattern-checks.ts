import type { AgentCliStep, ChainStep, WorkflowSpec } from './schema.js';
import { isAgentCliStep, isAgentStep } from './chain-steps.js';
import { findExecutable } from '../agent-cli/find-executable.js';
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

/**
 * Why `who` cannot run its agent CLI here, or undefined when the CLI is on PATH: checked before
 * anything runs, so a session never starts to stop at its first CLI step.
 */
export function agentCliProblem(step: Pick<AgentCliStep, 'cli'>, who: string): string | undefined {
  if (findExecutable(step.cli)) return undefined;
  const install = step.cli === 'claude' ? 'npm install -g @anthropic-ai/claude-code' : 'npm install -g @openai/codex';
  return `${who} runs the ${step.cli} CLI, which is not on PATH; install it (${install}) or add its folder to PATH`;
}

/** The agents of a list of steps (approvals have none), each one that is not defined reported at its step; agent CLIs not on PATH too. */
export function checkSteps(spec: WorkflowSpec, steps: readonly ChainStep[], at: SpecPath, who: (i: number) => string, error: PathReport): void {
  for (const [i, step] of steps.entries()) {
    if (isAgentCliStep(step)) {
      const problem = agentCliProblem(step, who(i));
      if (problem) error([...at, i, 'cli'], problem);
    }
    if (!isAgentStep(step)) continue;
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
