import { closestName } from '../closest-name.js';
import { specJsonSchema } from './json-schema.js';

/**
 * Keys strands-cli specs carry that acode does not act on (yet): named "not supported by acode yet
 * and ignored" — never taken for a misspelling of a key acode has.
 */
const strandsOnlyKeys = new Set(['context_policy', 'failure_policy', 'warn_threshold', 'skills', 'max_steps', 'mcp', 'telemetry', 'http_executors', 'max_duration_s', 'tool_overrides', 'inference', '$ref']);

type SchemaNode = Record<string, unknown>;

/** The schema's alternatives at a node, flattened (anyOf, oneOf, allOf). */
function branches(node: SchemaNode): SchemaNode[] {
  const nested = ['anyOf', 'oneOf', 'allOf'].flatMap((key) => (Array.isArray(node[key]) ? (node[key] as SchemaNode[]) : []));
  return nested.length ? [node, ...nested.flatMap(branches)] : [node];
}

/** Generated once, when a spec first has a key acode does not know. */
let schema: SchemaNode | undefined;

/** The keys an object at `path` of a spec may have, by the spec's JSON Schema (every alternative). */
function keysAt(path: readonly PropertyKey[]): Set<string> {
  schema ??= specJsonSchema() as SchemaNode;
  let nodes = [schema];
  for (const segment of path) {
    nodes = nodes.flatMap(branches).flatMap((node) => {
      if (typeof segment === 'number') return node.items && typeof node.items === 'object' ? [node.items as SchemaNode] : [];
      const property = (node.properties as Record<string, SchemaNode> | undefined)?.[String(segment)];
      if (property) return [property];
      return node.additionalProperties && typeof node.additionalProperties === 'object' ? [node.additionalProperties as SchemaNode] : [];
    });
  }
  return new Set(nodes.flatMap(branches).flatMap((node) => Object.keys((node.properties as object | undefined) ?? {})));
}

/**
 * The key acode has at `path` that an unknown `key` most likely misspells ("modle_id" → "model_id",
 * "inptu" → "input"), if any: such a key is an error, where it would be ignored (a step sent with
 * no input, paid for). Undefined for strands-cli's own keys and for keys close to none.
 */
export function misspeltKey(path: readonly PropertyKey[], key: string): string | undefined {
  if (strandsOnlyKeys.has(key)) return undefined;
  const known = keysAt(path);
  if (known.has(key)) return undefined;
  return closestName(key, known);
}
