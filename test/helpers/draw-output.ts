import type InkOutput from '../../node_modules/ink/build/output.js';
import type Output from '../../source/ui/ink-output.js';

/** What a frame does to an Output: a write (with one of a test's sets of transformers), a clip, an unclip. */
export type OutputOp = { kind: 'write'; x: number; y: number; text: string; transform: number } | { kind: 'clip'; x1?: number; x2?: number; y1?: number; y2?: number } | { kind: 'unclip' };

/** Does `ops` to `output` (Ink's or the bundle's), `transformers[op.transform]` for each write, and returns what it draws. */
export function drawOps(output: InkOutput | Output, ops: readonly OutputOp[], transformers: readonly ((line: string, index: number) => string)[][]) {
  for (const o of ops) {
    if (o.kind === 'write') output.write(o.x, o.y, o.text, { transformers: transformers[o.transform]! });
    else if (o.kind === 'clip') output.clip({ x1: o.x1, x2: o.x2, y1: o.y1, y2: o.y2 });
    else output.unclip();
  }
  return output.get();
}
