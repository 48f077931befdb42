import { isAlias, isCollection, isMap, isPair, isScalar, LineCounter, parseDocument, visit, type Alias, type Document, type Node } from 'yaml';
import type { SpecProblem } from './spec-problem.js';

type PathKey = string | number;

/** A parsed YAML document that can say where any path in it starts. */
export interface PositionedYaml {
  doc: Document;
  /** Line and column (1-based) of the value at `path`, or of its nearest existing parent. */
  locate(path: readonly PathKey[]): { line: number; column: number };
  /** Line and column of the key `key` inside the map at `path`. */
  locateKey(path: readonly PathKey[], key: string): { line: number; column: number };
  /** Line and column of a character offset into the text. */
  position(offset: number | undefined): { line: number; column: number };
  /** The alias that makes `doc.toJS()` throw (undefined anchor, or aliases of aliases past the limit), placed. */
  aliasAt(error: ReferenceError): { line: number; column: number; message: string };
}

/** Whether a node holds an alias anywhere inside it: expanding it multiplies. */
function holdsAlias(node: unknown): boolean {
  let found = false;
  if (isAlias(node)) return true;
  if (isCollection(node)) {
    visit(node, {
      Alias() {
        found = true;
        return visit.BREAK;
      },
    });
  }
  return found;
}

export function parsePositioned(text: string): PositionedYaml {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number | undefined) => {
    const pos = lineCounter.linePos(offset ?? 0);
    return { line: pos.line, column: pos.col };
  };
  const nodeAt = (path: readonly PathKey[]): Node | undefined => {
    for (let depth = path.length; depth >= 0; depth--) {
      const node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
      if (node && typeof node === 'object' && 'range' in node) return node as Node;
    }
    return undefined;
  };
  const aliases: Alias[] = [];
  visit(doc, {
    Alias(_, node) {
      aliases.push(node);
    },
  });
  return {
    doc,
    position: at,
    aliasAt(error) {
      const undefinedAlias = aliases.find((alias) => !alias.resolve(doc));
      if (undefinedAlias) {
        return { ...at(undefinedAlias.range?.[0]), message: `YAML: alias *${undefinedAlias.source} refers to no anchor &${undefinedAlias.source} defined before it; define the anchor first or remove the alias` };
      }
      const bomb = aliases.find((alias) => holdsAlias(alias.resolve(doc))) ?? aliases[0];
      return { ...at(bomb?.range?.[0]), message: `YAML: aliases expand into too many nodes (${error.message}); *${bomb?.source ?? '?'} repeats an anchor that itself holds aliases — write the values out instead` };
    },
    locate: (path) => at(nodeAt(path)?.range?.[0]),
    locateKey(path, key) {
      const map = nodeAt(path);
      if (isMap(map)) {
        const pair = map.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === key);
        if (pair && isScalar(pair.key)) return at(pair.key.range?.[0]);
      }
      return at(map?.range?.[0]);
    },
  };
}

/**
 * What a parsed document holds, or why it holds nothing, placed in `file`: its YAML errors, or the
 * alias that makes expanding it throw (one naming no anchor, or a bomb of aliases of aliases) —
 * every reader of a YAML file the user wrote (a spec, an agent file, a config) answers these alike.
 */
export function yamlValue(yaml: PositionedYaml, file: string): { value: unknown; problems?: undefined } | { problems: SpecProblem[] } {
  if (yaml.doc.errors.length) {
    return { problems: yaml.doc.errors.map((error) => ({ severity: 'error', file, ...yaml.position(error.pos[0]), message: `YAML: ${error.message.split('\n')[0]}` })) };
  }
  try {
    return { value: yaml.doc.toJS() };
  } catch (error) {
    // The yaml library refuses an undefined alias or an alias bomb only when it expands them.
    if (!(error instanceof ReferenceError)) throw error;
    const { message, ...pos } = yaml.aliasAt(error);
    return { problems: [{ severity: 'error', file, ...pos, message }] };
  }
}
