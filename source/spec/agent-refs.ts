import { dirname, join, resolve } from 'node:path';
import type { SpecProblem } from './spec-problem.js';
import { parsePositioned, yamlValue, type PositionedYaml } from './yaml-positions.js';
import { readYamlFile } from './yaml-file.js';

/** The keys strands-cli writes an atomic agent's file under. */
export const refKeys = ['$ref', 'ref'] as const;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Where a resolved agent's fields were written: the agent file, except the overrides beside `$ref`. */
export interface AgentSource {
  /** The `$ref` as written in the spec. */
  ref: string;
  /** The agent file as messages name it (the spec's folder joined with the ref). */
  file: string;
  yaml: PositionedYaml;
  /** The id the agent has inside its file. */
  id: string;
  /** Keys written beside `$ref` in the spec, which lie over the file's. */
  overrides: ReadonlySet<string>;
}

type Read = { agent: Record<string, unknown>; yaml: PositionedYaml; id: string } | { problems: SpecProblem[] } | { reason: string };

/** Why a referenced agent file cannot be used, or the single agent it defines. */
function readAtomicAgent(path: string, shown: string, ref: string, spec: { path: string; shown: string }): Read {
  if (path === spec.path) return { reason: `${ref} is this spec itself: a cycle (${spec.shown} → ${spec.shown})` };
  const read = readYamlFile(path);
  if ('reason' in read) return { reason: `cannot read ${ref} (${read.code === 'ENOENT' ? 'no such file' : (read.code ?? read.reason)}; it resolves to ${path})` };
  const yaml = parsePositioned(read.text);
  const parsed = yamlValue(yaml, shown);
  if (parsed.problems) return { problems: parsed.problems };
  const raw = parsed.value;
  const agents = isRecord(raw) && isRecord(raw.agents) ? Object.entries(raw.agents) : [];
  if (agents.length !== 1 || !isRecord(agents[0]![1])) {
    return { reason: `${ref} is not an atomic agent: its 'agents' mapping must hold exactly one agent (it holds ${agents.length})` };
  }
  const [id, agent] = agents[0] as [string, Record<string, unknown>];
  const nestedKey = refKeys.find((key) => key in agent);
  if (nestedKey) {
    const nested = agent[nestedKey];
    const { line, column } = yaml.locate(['agents', id, nestedKey]);
    const target = typeof nested === 'string' ? resolve(dirname(path), nested) : undefined;
    // strands-cli allows no $ref inside an agent file, so a cycle is one that comes straight back.
    if (target === spec.path || target === path) return { reason: `${ref} refers back to ${target === path ? 'itself' : 'this spec'} at ${shown}:${line}:${column}: a cycle (${spec.shown} → ${shown} → ${target === path ? shown : spec.shown}); an atomic agent is self-contained` };
    return { reason: `${ref} refers to another agent file itself at ${shown}:${line}:${column}; an atomic agent is self-contained (no nested $ref)` };
  }
  return { agent, yaml, id };
}

export interface AgentRefs {
  problems: SpecProblem[];
  /** Agents whose `$ref` could not be used. */
  unresolved: string[];
  /** Agent id → the file its definition came from, for messages about its fields and their positions. */
  resolved: ReadonlyMap<string, AgentSource>;
}

/**
 * strands-cli's atomic agents: an agent written `{ $ref: path/to/agent.yaml, …overrides }` is the one
 * agent that file defines (a path relative to the spec), with the fields beside `$ref` laid over it.
 * Resolved in place in `raw` before validation, so the session keeps the agents it ran (spec.json):
 * a resume runs them as they were, whatever the file holds by then.
 */
export function resolveAgentRefs(raw: unknown, yaml: PositionedYaml, file: string): AgentRefs {
  const problems: SpecProblem[] = [];
  const unresolved: string[] = [];
  const resolved = new Map<string, AgentSource>();
  if (!isRecord(raw) || !isRecord(raw.agents)) return { problems, unresolved, resolved };
  for (const [id, definition] of Object.entries(raw.agents)) {
    if (!isRecord(definition)) continue;
    const key = refKeys.find((k) => typeof definition[k] === 'string');
    if (!key) continue;
    const ref = definition[key] as string;
    const shown = join(dirname(file), ref);
    const found = readAtomicAgent(resolve(dirname(file), ref), shown, ref, { path: resolve(file), shown: file });
    if ('agent' in found) {
      const { [key]: _ref, ...overrides } = definition;
      raw.agents[id] = { ...found.agent, ...overrides };
      resolved.set(id, { ref, file: shown, yaml: found.yaml, id: found.id, overrides: new Set(Object.keys(overrides)) });
      continue;
    }
    unresolved.push(id);
    if ('problems' in found) problems.push(...found.problems);
    const reason = 'reason' in found ? found.reason : `${ref} is not valid YAML (above)`;
    problems.push({ severity: 'error', file, ...yaml.locate(['agents', id, key]), message: `agents.${id}.${key}: ${reason}; a $ref names an atomic agent file, relative to this spec` });
  }
  return { problems, unresolved, resolved };
}

/** Where a path of the resolved spec is written: the spec, or the agent file a `$ref` brought it from. */
export interface Placed {
  file: string;
  yaml: PositionedYaml;
  path: (string | number)[];
}

/** Places `path` (of the spec as resolved) in the document that holds it, for errors at that file's line. */
export function placeInSources(refs: AgentRefs, yaml: PositionedYaml, file: string, path: readonly (string | number)[]): Placed {
  const source = path[0] === 'agents' && path.length > 2 ? refs.resolved.get(String(path[1])) : undefined;
  if (!source || source.overrides.has(String(path[2]))) return { file, yaml, path: [...path] };
  return { file: source.file, yaml: source.yaml, path: ['agents', source.id, ...path.slice(2)] };
}
