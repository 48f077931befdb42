import type { GraphPattern, WorkflowSpec } from '../../spec/schema.js';
import { isAgentCliStep, isAgentStep, isApprovalStep } from '../../spec/chain-steps.js';
import { renderTemplate, TemplateError } from '../../spec/template.js';
import { isObject, isString, type EngineKind } from '../pattern-kind.js';
import { oncePerEvent } from './answer-json.js';
import type { Pattern, PatternHalt, PatternStep, ShapeNode } from '../pattern.js';
import { reusableInLine } from './line-reuse.js';
import type { SessionProgress } from '../session-progress.js';
import type { StepId } from '../step-id.js';

type Config = GraphPattern['config'];
type GraphNode = Config['nodes'][string];

/** A node's k-th visit: `review` the first time, `review@2`, `review@3` … after (node ids hold no `@`). */
export const visitStep = (node: string, visit: number): StepId => (visit === 1 ? node : `${node}@${visit}`);

/** An edge condition as strands-cli writes it: `else`, or a template expression with or without `{{ }}`. */
export function conditionTemplate(when: string): string | undefined {
  const text = when.trim();
  if (text.toLowerCase() === 'else') return undefined;
  const inner = /^\{\{([\s\S]*)\}\}$/.exec(text)?.[1] ?? text;
  return `{% if ${inner.trim()} %}true{% else %}false{% endif %}`;
}

interface Visit {
  node: string;
  visit: number;
  id: StepId;
}

interface Walk {
  /** Visits finished, in order: the path walked so far. */
  path: Visit[];
  /** The visit to run next (its step not completed yet). */
  next?: Visit;
  halt?: PatternHalt;
  /** The node the walk ended at (no edge out, or no choice that held). */
  terminal?: string;
}

/**
 * strands-cli's `graph`: nodes (agents or approvals) joined by edges — `to` goes on, `choose` takes
 * the first `when` that holds (a template expression over `nodes.<id>.response`, or `else`), and a
 * node with no edge out (or no choice that holds) ends the walk. The walk starts at the first node.
 * Each visit is a step (`node`, `node@2` …), and the next node is derived from the recorded answers,
 * so a resume walks the same path without asking again. A node visited `max_iterations` times is
 * not entered again: the run pauses there, resumable once the limit is raised.
 */
export function graphPattern(config: Config, spec: Pick<WorkflowSpec, 'name'>): Pattern {
  const nodeIds = Object.keys(config.nodes);
  const entry = nodeIds[0]!;
  const edges = config.edges;
  const limit = config.max_iterations;
  const agentAliases = graphAgentAliases(config);

  /** What templates and conditions see of the nodes: every one, as strands-cli fills them in before the walk. */
  const nodesView = (progress: SessionProgress, path: readonly Visit[]) => {
    const view: Record<string, { response: string; agent: string; status: string; iteration: number }> = {};
    for (const id of nodeIds) {
      const node = config.nodes[id]!;
      view[id] = { response: '', agent: isAgentStep(node) ? node.agent : isAgentCliStep(node) ? node.cli : '', status: 'not_executed', iteration: 0 };
    }
    for (const visit of path) view[visit.node] = { ...view[visit.node]!, response: progress.completed[visit.id]?.response ?? '', status: 'success', iteration: visit.visit };
    // strands-cli's examples read a node by its agent's name too (`nodes.validator` for node validate, run by agent validator).
    for (const [agent, node] of agentAliases) view[agent] = view[node]!;
    return view;
  };
  const lastHitl = (progress: SessionProgress, path: readonly Visit[]) => {
    const visit = [...path].reverse().find((v) => isApprovalStep(config.nodes[v.node]!));
    return visit ? progress.completed[visit.id]?.response : undefined;
  };

  /** The node after `from`, from its first edge out; a condition that cannot be evaluated halts the walk. */
  const nextNode = (from: string, progress: SessionProgress, path: readonly Visit[]): { node?: string; halt?: PatternHalt } => {
    const edge = edges.find((e) => e.from === from);
    if (!edge) return {};
    if (edge.to !== undefined) return { node: edge.to[0] };
    const context = { nodes: nodesView(progress, path), hitl_response: lastHitl(progress, path) ?? null };
    for (const choice of edge.choose ?? []) {
      const template = conditionTemplate(choice.when);
      if (template === undefined) return { node: choice.to };
      try {
        if (renderTemplate(template, context) === 'true') return { node: choice.to };
      } catch (error) {
        if (!(error instanceof TemplateError)) throw error;
        return { halt: { outcome: 'failed', reason: 'unreadable_answer', message: `the condition '${choice.when}' on the edge from node '${from}' could not be evaluated: ${error.message}` } };
      }
    }
    // No choice held: strands-cli ends the walk here, successfully.
    return {};
  };

  // The way out of a visit depends only on the answers before it, which never change: decided once.
  const decided = new Map<StepId, { node?: string; halt?: PatternHalt }>();
  const walk = oncePerEvent((progress: SessionProgress): Walk => {
    const path: Visit[] = [];
    const visits = new Map<string, number>();
    let node: string | undefined = entry;
    // Each visit is a completed step, so the walk is as long as the session's steps.
    while (node !== undefined) {
      const visit = (visits.get(node) ?? 0) + 1;
      if (visit > limit) {
        return { path, halt: { outcome: 'paused', reason: 'pattern_limit', message: `node '${node}' would run a ${ordinal(visit)} time, past pattern.config.max_iterations ${limit}: raise it (acode resume --set pattern.config.max_iterations=${limit * 2}) to go on` } };
      }
      const current: Visit = { node, visit, id: visitStep(node, visit) };
      if (!progress.completed[current.id]) return { path, next: current };
      visits.set(node, visit);
      path.push(current);
      const after: { node?: string; halt?: PatternHalt } = decided.get(current.id) ?? nextNode(node, progress, path);
      decided.set(current.id, after);
      if (after.halt) return { path, halt: after.halt };
      if (after.node === undefined) return { path, terminal: node };
      node = after.node;
    }
    return { path };
  });

  const work = (visit: Visit, progress: SessionProgress): PatternStep => {
    const node: GraphNode = config.nodes[visit.node]!;
    if (isApprovalStep(node)) return { id: visit.id, label: 'approval', work: { kind: 'approval', approval: node } };
    if (isAgentCliStep(node)) return { id: visit.id, label: node.cli, work: { kind: 'agent_cli', cli: node } };
    const input = node.input ?? '';
    // strands-cli's request for a node without input names the nodes run so far.
    const fallback = node.input === undefined ? `Execute task for node '${visit.node}'. Prior nodes: ${[...new Set(walk(progress).path.map((v) => v.node))].join(', ') || 'none'}.` : '';
    return { id: visit.id, label: node.agent, work: { kind: 'agent', agent: node.agent, input, append: fallback } };
  };

  const parse = (id: StepId): Visit | undefined => {
    const match = /^(.+?)(?:@([2-9]|[1-9]\d+))?$/.exec(id);
    if (!match || !Object.hasOwn(config.nodes, match[1]!)) return undefined;
    const visit = Number(match[2] ?? 1);
    return visit <= Math.max(limit, 1000) ? { node: match[1]!, visit, id } : undefined;
  };

  const shape = (progress: SessionProgress): ShapeNode[] => {
    const state = walk(progress);
    const visits = state.next ? [...state.path, state.next] : state.path;
    return visits.map((visit, i) => ({
      ...(i < state.path.length ? { detail: visits[i + 1] ? `→ ${visits[i + 1]!.node}` : state.terminal === visit.node ? 'ends here' : 'stopped here' } : {}),
      id: visit.id,
      label: nodeLabel(config.nodes[visit.node]!),
      title: visit.visit === 1 ? `node ${visit.node}` : `node ${visit.node} (visit ${visit.visit})`,
      group: null,
      after: i === 0 ? [] : [visits[i - 1]!.id],
      approval: isApprovalStep(config.nodes[visit.node]!),
    }));
  };

  return {
    type: 'graph',
    shape,
    step(id, progress) {
      const visit = parse(id);
      return visit ? work(visit, progress) : undefined;
    },
    ready(progress) {
      const state = walk(progress);
      return state.next ? [work(state.next, progress)] : [];
    },
    finished: (progress) => walk(progress).terminal !== undefined,
    halted: (progress) => walk(progress).halt,
    context(id, progress, variables) {
      const state = walk(progress);
      // What the node sees: the nodes finished before this visit, and the last one's answer.
      const at = state.path.findIndex((visit) => visit.id === id);
      const before = at < 0 ? state.path : state.path.slice(0, at);
      const hitl = lastHitl(progress, before);
      const previous = before.at(-1);
      return { ...variables, nodes: nodesView(progress, before), hitl_response: hitl ?? null, last_response: previous ? (progress.completed[previous.id]?.response ?? '') : '' };
    },
    artifactContext(progress, variables) {
      const state = walk(progress);
      const terminal = state.terminal ?? state.path.at(-1)?.node ?? '';
      const last = state.path.at(-1);
      const counts: Record<string, number> = {};
      for (const visit of state.path) counts[visit.node] = visit.visit;
      const facts = {
        nodes: nodesView(progress, state.path),
        terminal_node: terminal,
        total_steps: state.path.length,
        iteration_counts: counts,
        execution_path: state.path.map((visit) => visit.node),
        name: spec.name,
        // strands-cli gives the time the artifacts are written; a resume writes them once, so they stay whole.
        timestamp: new Date().toISOString(),
      };
      // strands-cli's examples read these flat and as execution_context.<key>.
      return { ...variables, TRACE: '', ...facts, execution_context: facts, hitl_response: lastHitl(progress, state.path) ?? null, last_response: last ? (progress.completed[last.id]?.response ?? '') : '' };
    },
    reusableBefore: (from, progress) => reusableInLine(shape(progress), from, progress),
    firstUnfinished: (progress) => walk(progress).next?.id,
  };
}

/**
 * Agent ids a template may use for the node they run, where no node has that id and one node alone
 * runs the agent: agent → node.
 */
export function graphAgentAliases(config: Pick<Config, 'nodes'>): Map<string, string> {
  const byAgent = new Map<string, string[]>();
  for (const [id, node] of Object.entries(config.nodes)) if (isAgentStep(node)) byAgent.set(node.agent, [...(byAgent.get(node.agent) ?? []), id]);
  return new Map([...byAgent].filter(([agent, nodes]) => nodes.length === 1 && !Object.hasOwn(config.nodes, agent)).map(([agent, nodes]) => [agent, nodes[0]!]));
}

function ordinal(n: number): string {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? 'th' : ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th';
  return `${n}${suffix}`;
}

const isNode = (node: unknown) => isObject(node) && (isString(node.agent) || isString(node.type));

/** What views call a node's step: its agent, "approval", or the CLI that runs it. */
const nodeLabel = (node: GraphNode): string => (isApprovalStep(node) ? 'approval' : isAgentCliStep(node) ? node.cli : node.agent);
const isEdge = (edge: unknown) => isObject(edge) && isString(edge.from) && (Array.isArray(edge.to) || Array.isArray(edge.choose));

export const graphKind: EngineKind<GraphPattern> = {
  plugin: graphPattern,
  hasShape: (config) => typeof config.max_iterations === 'number' && isObject(config.nodes) && Object.values(config.nodes).every(isNode) && Array.isArray(config.edges) && config.edges.every(isEdge),
  words: {
    lane: ['node', 'nodes'],
    laneLabel: (group) => group,
    // The header is drawn once, at the start: it says what the run does, not a count that grows.
    shapeWords: () => 'nodes visited as the answers lead',
  },
  numbered: false,
};
