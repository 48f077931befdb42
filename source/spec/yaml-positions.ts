import { isMap, isPair, isScalar, LineCounter, parseDocument, type Document, type Node } from 'yaml';

type PathKey = string | number;

/** A parsed YAML document that can say where any path in it starts. */
export interface PositionedYaml {
  doc: Document;
  /** Line and column (1-based) of the value at `path`, or of its nearest existing parent. */
  locate(path: readonly PathKey[]): { line: number; column: number };
  /** Line and column of the key `key` inside the map at `path`. */
  locateKey(path: readonly PathKey[], key: string): { line: number; column: number };
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
  return {
    doc,
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
