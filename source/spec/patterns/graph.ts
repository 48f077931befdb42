import { z } from '../../validation/z.js';
import { plural } from '../../human-units.js';
import { isAgentStep } from '../chain-steps.js';
import { checkAgentCli, agentProblem, suggest } from '../pattern-checks.js';
import { configPath, stepFields, type PatternOf, type SpecKind, type SpecPath } from '../pattern-kind.js';
import { agentCliStepSchema, agentStepSchema, approvalStepSchema, identifier } from '../step-schemas.js';
import { scope } from '../template-scopes.js';
import type { KeyedScope } from '../template-scan.js';
import { conditionTemplate, graphAgentAliases } from '../../engine/patterns/graph.js';

const nodeSchema = z.union([agentStepSchema.omit({ input: true, vars: true }).extend({ input: z.string().optional() }), approvalStepSchema, agentCliStepSchema], {
  error: (issue) => (issue.code === 'invalid_union' ? 'a node is an agent node (agent, input), an approval (type: hitl, prompt) or an agent CLI (type: agent_cli, cli, prompt)' : undefined),
});

const edgeSchema = z.strictObject({
  from: identifier,
  /** strands-cli takes a list and goes to its first entry. */
  to: z.union([identifier.transform((id) => [id]), z.array(identifier).min(1)]).optional(),
  choose: z.array(z.strictObject({ when: z.string(), to: identifier })).min(1).optional(),
});

/** Nodes joined by edges; conditions on the answers pick the way; cycles are capped by max_iterations. */
export const graphSchema = z.strictObject({
  type: z.literal('graph'),
  config: z.strictObject({
    /** How many times one node may run (strands-cli's cap against endless cycles). */
    max_iterations: z.number().int().min(1).max(10_000).default(10),
    nodes: z.record(identifier, nodeSchema),
    edges: z.array(edgeSchema).default([]),
  }),
});

type Pattern = PatternOf<'graph'>;

function nodesKeyed(pattern: Pattern): KeyedScope {
  const ids = new Set([...Object.keys(pattern.config.nodes), ...graphAgentAliases(pattern.config).keys()]);
  return { noun: 'node', known: ids, available: ids, unavailable: () => '' };
}

const nodeNames = ['nodes', 'hitl_response', 'last_response'];

/** `a contains 'b'` (the schema's own example in strands-cli): Jinja has no such operator, and says only "expected block end". */
const usesContains = (when: string) => /\bcontains\b/.test(when.replace(/(["'])(?:\\.|(?!\1).)*\1/g, ''));

/**
 * - node input / approval texts: variables, `nodes.<id>.response` / `.agent` / `.status` /
 *   `.iteration` of every node (empty and `not_executed` until it runs, as strands-cli fills them),
 *   `hitl_response` (the latest approval node's answer, or none).
 * - edge conditions (`when`): the same.
 * - artifacts: the same, `terminal_node`, `total_steps`, `iteration_counts`, `execution_path`, `name`, `timestamp`.
 */
export const graphKind: SpecKind<Pattern> = {
  names: [...nodeNames, 'last_response', 'TRACE', 'terminal_node', 'total_steps', 'iteration_counts', 'execution_path', 'name', 'timestamp', 'execution_context'],
  check(spec, pattern, error, warn) {
    const at: SpecPath = [...configPath];
    const nodes = pattern.config.nodes;
    const ids = Object.keys(nodes);
    if (ids.length === 0) error([...at, 'nodes'], 'a graph needs at least one node: node id → { agent, input } or { type: hitl, prompt }');
    for (const [id, node] of Object.entries(nodes)) {
      checkAgentCli(node, `node '${id}'`, [...at, 'nodes', id], error);
      if (!isAgentStep(node)) continue;
      const problem = agentProblem(spec, node.agent, `node '${id}'`);
      if (problem) error([...at, 'nodes', id, 'agent'], problem);
    }
    const unknown = (target: string) => `'${target}' is not a node (nodes: ${ids.join(', ')})${suggest(target, ids)}`;
    const seenFrom = new Map<string, number>();
    for (const [i, edge] of pattern.config.edges.entries()) {
      if (!Object.hasOwn(nodes, edge.from)) error([...at, 'edges', i, 'from'], `edge ${i + 1} leaves from ${unknown(edge.from)}`);
      if ((edge.to === undefined) === (edge.choose === undefined)) error([...at, 'edges', i], `edge ${i + 1} from '${edge.from}' needs either to: <node> or choose: [{when, to}], not ${edge.to === undefined ? 'neither' : 'both'}`);
      for (const [j, target] of (edge.to ?? []).entries()) if (!Object.hasOwn(nodes, target)) error([...at, 'edges', i, 'to', j], `edge ${i + 1} goes to ${unknown(target)}`);
      if (edge.to && edge.to.length > 1) warn([...at, 'edges', i, 'to'], `edge ${i + 1} from '${edge.from}' lists ${edge.to.length} targets: only the first ('${edge.to[0]}') runs, as in strands-cli; use choose to pick one`);
      for (const [j, choice] of (edge.choose ?? []).entries()) {
        if (!Object.hasOwn(nodes, choice.to)) error([...at, 'edges', i, 'choose', j, 'to'], `edge ${i + 1} may go to ${unknown(choice.to)}`);
        if (usesContains(choice.when)) error([...at, 'edges', i, 'choose', j, 'when'], `a condition has no operator 'contains' (Jinja's is 'in'): write "'high' in nodes.analyze.response" for "nodes.analyze.response contains 'high'"`);
      }
      const earlier = seenFrom.get(edge.from);
      if (earlier !== undefined) warn([...at, 'edges', i, 'from'], `edge ${i + 1} leaves '${edge.from}' as edge ${earlier + 1} does: only the first edge out of a node is followed (strands-cli); merge them into one choose`);
      else seenFrom.set(edge.from, i);
    }
    // Reachable from the first node (the entry), following every edge.
    const reached = new Set<string>(ids.length ? [ids[0]!] : []);
    for (let grew = true; grew; ) {
      grew = false;
      for (const edge of pattern.config.edges) {
        if (!reached.has(edge.from)) continue;
        for (const target of [...(edge.to ?? []).slice(0, 1), ...(edge.choose ?? []).map((c) => c.to)]) {
          if (!Object.hasOwn(nodes, target) || reached.has(target)) continue;
          reached.add(target);
          grew = true;
        }
      }
    }
    for (const id of ids) if (!reached.has(id)) warn([...at, 'nodes', id], `node '${id}' can never run: no edge leads to it from the entry node '${ids[0]}' (the first node)`);
    if (ids.length && ids.every((id) => seenFrom.has(id) && pattern.config.edges.some((e) => e.from === id && e.to))) {
      error([...at, 'edges'], 'every node has an edge out with no condition, so the graph never ends; give one node no edge out, or use choose');
    }
  },
  *templateFields(pattern) {
    for (const [id, node] of Object.entries(pattern.config.nodes)) {
      if (!isAgentStep(node)) yield* stepFields(node, [...configPath, 'nodes', id]);
      else if (node.input !== undefined) yield [[...configPath, 'nodes', id, 'input'], node.input];
    }
    for (const [i, edge] of pattern.config.edges.entries()) {
      for (const [j, choice] of (edge.choose ?? []).entries()) {
        const template = conditionTemplate(choice.when);
        // Reported by check() in words: compiled, it would only say "expected block end".
        if (template !== undefined && !usesContains(choice.when)) yield [[...configPath, 'edges', i, 'choose', j, 'when'], template];
      }
    }
  },
  fieldScopes: (_spec, pattern, _path, variables) => [scope([...variables, ...nodeNames], { keyed: new Map([['nodes', nodesKeyed(pattern)]]) })],
  agentScopes: (_spec, pattern, agent, variables) =>
    Object.values(pattern.config.nodes).some((node) => isAgentStep(node) && node.agent === agent) ? [scope([...variables, ...nodeNames], { keyed: new Map([['nodes', nodesKeyed(pattern)]]) })] : [],
  artifactScope: (_spec, pattern, variables) =>
    scope([...variables, 'last_response', 'TRACE', ...nodeNames, 'terminal_node', 'total_steps', 'iteration_counts', 'execution_path', 'name', 'timestamp', 'execution_context'], { keyed: new Map([['nodes', nodesKeyed(pattern)]]) }),
  describe(_spec, pattern) {
    const ids = Object.keys(pattern.config.nodes);
    return `graph, ${plural(ids.length, 'node')} and ${plural(pattern.config.edges.length, 'edge')} from '${ids[0] ?? ''}', each node at most ${plural(pattern.config.max_iterations, 'time')} (max_iterations)`;
  },
};
