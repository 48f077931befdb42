import { isAlias, isCollection, isMap, isPair, isScalar, Lexer, LineCounter, parseDocument, visit, YAMLParseError, type Alias, type Document, type Node } from 'yaml';
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

/**
 * The most values (scalars) a YAML file acode reads may hold. The parsed document takes about a
 * kilobyte a value: a 4 MiB file of two million one-character values took 2.7 GB and 30 s.
 */
export const yamlValueLimit = 50_000;

/** The offset of the value past yamlValueLimit, found by the lexer alone (no document built), or undefined. */
function pastValueLimit(text: string): number | undefined {
  let values = 0;
  let offset = 0;
  for (const token of new Lexer().lex(text)) {
    // The lexer marks where a scalar starts with U+001F; its other control tokens take no text.
    if (token === '\u001f' && ++values > yamlValueLimit) return offset;
    if (token.length > 1 || token >= ' ' || token === '\n' || token === '\t' || token === '\r') offset += token.length;
  }
  return undefined;
}

/** "Map keys must be unique", as the yaml library says it, for each key a map repeats. */
function duplicateKeys(doc: Document): YAMLParseError[] {
  const errors: YAMLParseError[] = [];
  visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        // Scalars are equal by value (1 and '1' differ), as the library compares them.
        const key = isScalar(pair.key) ? pair.key.value : pair.key;
        if (!seen.has(key)) seen.add(key);
        else if (isScalar(pair.key)) errors.push(new YAMLParseError([pair.key.range?.[0] ?? 0, pair.key.range?.[1] ?? 0], 'DUPLICATE_KEY', 'Map keys must be unique'));
      }
    },
  });
  return errors;
}

export function parsePositioned(text: string): PositionedYaml {
  const lineCounter = new LineCounter();
  const tooMany = pastValueLimit(text);
  // The library's own uniqueKeys check compares each key with every key before it: a 4 MiB
  // mapping of 300,000 keys took over ten minutes. Same check, each map's keys in a Set.
  const doc = parseDocument(tooMany === undefined ? text : '', { lineCounter, prettyErrors: false, uniqueKeys: false });
  if (tooMany !== undefined) {
    lineCounter.lineStarts.splice(0);
    for (let at = 0; at >= 0; at = text.indexOf('\n', at) + 1 || -1) lineCounter.addNewLine(at);
    doc.errors.push(new YAMLParseError([tooMany, tooMany + 1], 'RESOURCE_EXHAUSTION', `the file holds more than ${yamlValueLimit.toLocaleString('en-US')} values (the limit for a YAML file acode reads; a spec holds a few hundred)`));
  }
  doc.errors.push(...duplicateKeys(doc));
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

/** The YAML 1.2 core schema's own tags: the only ones a file acode reads may write out. */
const coreTags = new Set(['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((name) => `tag:yaml.org,2002:${name}`));

/**
 * Explicit tags outside the core schema. The yaml library reads an unknown tag (`!weird`,
 * `!!js/function`) as plain text with only a warning, and YAML 1.1's (`!!binary`, `!!set`) as
 * values no spec field takes: a spec that needs them is not one acode understands.
 */
function foreignTags(yaml: PositionedYaml): { offset: number | undefined; message: string }[] {
  const found: { offset: number | undefined; message: string }[] = [];
  visit(yaml.doc, {
    Node(_, node) {
      // '!' is the non-specific tag: it only says "a string", as if untagged.
      if (node.tag === undefined || node.tag === '!' || coreTags.has(node.tag)) return;
      const shown = node.tag.replace(/^tag:yaml\.org,2002:/, '!!');
      found.push({ offset: node.range?.[0], message: `YAML: tag ${shown} is not allowed: acode reads plain YAML 1.2 (tags !!str, !!int, !!float, !!bool, !!null, !!map, !!seq at most); remove the tag and write the value as text` });
    },
  });
  return found;
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
  const tagged = foreignTags(yaml);
  if (tagged.length) return { problems: tagged.map(({ offset, message }) => ({ severity: 'error', file, ...yaml.position(offset), message })) };
  try {
    return { value: yaml.doc.toJS() };
  } catch (error) {
    // The yaml library refuses an undefined alias or an alias bomb only when it expands them.
    if (!(error instanceof ReferenceError)) throw error;
    const { message, ...pos } = yaml.aliasAt(error);
    return { problems: [{ severity: 'error', file, ...pos, message }] };
  }
}
