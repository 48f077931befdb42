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
 * A step (task, node, reduce) at `at` that runs an agent CLI not on PATH is reported at its `cli`:
 * checked before anything runs, so a session never starts to stop at its first CLI step.
 */
export function checkAgentCli(step: object | undefined, who: string, at: SpecPath, error: PathReport): void {
  const cli = step && isAgentCliStep(step as ChainStep) ? (step as AgentCliStep).cli : undefined;
  if (!cli || findExecutable(cli)) return;
  const install = cli === 'claude' ? 'npm install -g @anthropic-ai/claude-code' : 'npm install -g @openai/codex';
  error([...at, 'cli'], `${who} runs the ${cli} CLI, which is not on PATH; install it (${install}) or add its folder to PATH`);
}

/** The agents of a list of steps (approvals have none), each one that is not defined reported at its step; agent CLIs not on PATH too. */
export function checkSteps(spec: WorkflowSpec, steps: readonly ChainStep[], at: SpecPath, who: (i: number) => string, error: PathReport): void {
  for (const [i, step] of steps.entries()) {
    checkAgentCli(step, who(i), [...at, i], error);
    if (!isAgentStep(step)) continue;
    const problem = agentProblem(spec, step.agent, who(i));
    if (problem) error([...at, i, 'agent'], problem);
  }
}

/** An agent-CLI step as the session check sees it: the session it continues, who it is, where it is. */
export interface CliSessionUse {
  cli: AgentCliStep['cli'];
  session: string | undefined;
  who: string;
  at: SpecPath;
}

/**
 * Steps naming one agent-CLI `session` continue one conversation, one step after another: two at
 * once would both resume the same conversation id (or both start one, and the later id win), each
 * CLI writing into the one transcript with no idea of the other. So steps that may run at the same
 * time (`concurrent`: different parallel branches, workflow tasks neither of which waits for the
 * other) are refused sharing a session, at the later one.
 */
export function checkCliSessions(uses: readonly CliSessionUse[], concurrent: (a: number, b: number) => boolean, error: PathReport): void {
  for (const [j, later] of uses.entries()) {
    if (!later.session) continue;
    const i = uses.findIndex((earlier, k) => k < j && earlier.session === later.session && concurrent(k, j));
    if (i < 0) continue;
    error([...later.at, 'session'], `${later.who} and ${uses[i]!.who} both continue the ${later.cli} session '${later.session}' and may run at the same time, but one conversation takes one step at a time; give one of them its own session, or make one run after the other`);
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
