import { dirname, resolve } from 'node:path';
import type { SpecProblem } from './spec-problem.js';
import { parsePositioned, yamlValue, type PositionedYaml } from './yaml-positions.js';
import { readYamlFile } from './yaml-file.js';

/** The keys strands-cli writes an atomic agent's file under. */
export const refKeys = ['$ref', 'ref'] as const;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Why a referenced agent file cannot be used, or the single agent it defines. */
function readAtomicAgent(path: string, ref: string): { agent: Record<string, unknown> } | { problems: SpecProblem[] } | { reason: string } {
  const read = readYamlFile(path);
  if ('reason' in read) return { reason: `cannot read ${ref} (${read.code === 'ENOENT' ? 'no such file' : (read.code ?? read.reason)}; it resolves to ${path})` };
  const yaml = parsePositioned(read.text);
  const parsed = yamlValue(yaml, path);
  if (parsed.problems) return { problems: parsed.problems };
  const raw = parsed.value;
  const agents = isRecord(raw) && isRecord(raw.agents) ? Object.values(raw.agents) : [];
  if (agents.length !== 1 || !isRecord(agents[0])) {
    return { reason: `${ref} is not an atomic agent: its 'agents' mapping must hold exactly one agent (it holds ${agents.length})` };
  }
  const agent = agents[0];
  if (refKeys.some((key) => key in agent)) return { reason: `${ref} refers to another agent file itself; an atomic agent is self-contained (no nested $ref)` };
  return { agent };
}

export interface AgentRefs {
  problems: SpecProblem[];
  /** Agents whose `$ref` could not be used. */
  unresolved: string[];
  /** Agent id → the file its definition came from, for messages about its fields. */
  resolved: ReadonlyMap<string, string>;
}

/**
 * strands-cli's atomic agents: an agent written `{ $ref: path/to/agent.yaml, …overrides }` is the one
 * agent that file defines (a path relative to the spec), with the fields beside `$ref` laid over it.
 * Resolved in place in `raw` before validation, so the session keeps the agents it ran.
 */
export function resolveAgentRefs(raw: unknown, yaml: PositionedYaml, file: string): AgentRefs {
  const problems: SpecProblem[] = [];
  const unresolved: string[] = [];
  const resolved = new Map<string, string>();
  if (!isRecord(raw) || !isRecord(raw.agents)) return { problems, unresolved, resolved };
  for (const [id, definition] of Object.entries(raw.agents)) {
    if (!isRecord(definition)) continue;
    const key = refKeys.find((k) => typeof definition[k] === 'string');
    if (!key) continue;
    const ref = definition[key] as string;
    const found = readAtomicAgent(resolve(dirname(file), ref), ref);
    if ('agent' in found) {
      const { [key]: _ref, ...overrides } = definition;
      raw.agents[id] = { ...found.agent, ...overrides };
      resolved.set(id, ref);
      continue;
    }
    unresolved.push(id);
    if ('problems' in found) problems.push(...found.problems);
    const reason = 'reason' in found ? found.reason : `${ref} is not valid YAML (above)`;
    problems.push({ severity: 'error', file, ...yaml.locate(['agents', id, key]), message: `agents.${id}.${key}: ${reason}; a $ref names an atomic agent file, relative to this spec` });
  }
  return { problems, unresolved, resolved };
}
