import { ansiCodesToString, diffAnsiCodes, styledCharsFromTokens, tokenize, type StyledChar, type Token } from '@alcalzone/ansi-tokenize';
import sliceAnsi from 'slice-ansi';
import stringWidth from 'string-width';

/**
 * Ink's `Output` (ink/build/output.js, 6.8), which turns the frame's text writes into the lines a
 * terminal gets, with one change: what it learns outlives the frame. Ink builds a new Output every
 * frame and tokenizes every character of every line again — the live run view redraws ten times
 * a second, and each row of streamed text on it cost ~0.5 ms a frame to rebuild though it had not
 * changed. Here a line's characters are tokenized once (lines of ASCII and colour codes without
 * segmenting them), a row whose writes are the same as in an earlier frame is not rebuilt, and a
 * row is written a run of one style at a time. Same writes in, same text out (test/unit/ink-output.test.ts
 * compares the two on random frames); scripts/build.mjs puts it in Ink's place in the bundle.
 */

type OutputTransformer = (line: string, index: number) => string;
interface Clip {
  x1: number | undefined;
  x2: number | undefined;
  y1: number | undefined;
  y2: number | undefined;
}
type Operation = { type: 'write'; x: number; y: number; text: string; transformers: OutputTransformer[] } | { type: 'clip'; clip: Clip } | { type: 'unclip' };

/** A line's characters with their styles, and a number naming them in a row's key. */
interface Line {
  chars: StyledChar[];
  id: number;
}

/** Entries kept by each cache (a line of 120 characters costs ~12 KB): a frame holds far fewer; past this they are dropped and learnt again. */
const cacheLimit = 1024;
let nextLineId = 0;
const lines = new Map<string, Line>();
const widths = new Map<string, number>();
const blockWidths = new Map<string, number>();
/** A row's text by its width and writes (x and line id of each, in order). */
const rows = new Map<string, string>();

function bounded<K, V>(cache: Map<K, V>): Map<K, V> {
  if (cache.size >= cacheLimit) cache.clear();
  return cache;
}

/** SGR sequences (colours, dim, bold …) as ansi-tokenize reads them: CSI, digits and semicolons, `m`. */
const sgr = /\x1b\[[0-9;]*m/g;
const escapeTokens = new Map<string, Token[]>();

/**
 * A line's tokens as ansi-tokenize's `tokenize` gives them. A line of printable ASCII and SGR codes
 * (nearly every line of the run view) is read without it: tokenize segments the whole line into
 * graphemes, which costs more than the rest of a frame; here only its codes are tokenized (once
 * each), and every other character is a narrow one of its own.
 */
function tokensOf(text: string): Token[] {
  if (!/^[\x20-\x7e]*$/.test(text.replace(sgr, ''))) return tokenize(text);
  const tokens: Token[] = [];
  let at = 0;
  for (const match of text.matchAll(sgr)) {
    for (let i = at; i < match.index; i++) tokens.push({ type: 'char', value: text[i]!, fullWidth: false });
    let codes = escapeTokens.get(match[0]);
    if (codes === undefined) {
      codes = tokenize(match[0]);
      bounded(escapeTokens).set(match[0], codes);
    }
    tokens.push(...codes);
    at = match.index + match[0].length;
  }
  for (let i = at; i < text.length; i++) tokens.push({ type: 'char', value: text[i]!, fullWidth: false });
  return tokens;
}

const styleSets = new Map<string, StyledChar['styles']>();

/** One array for each set of styles: a row's characters in one style share it, so a run of them is found by identity. */
function sharedStyles(styles: StyledChar['styles']): StyledChar['styles'] {
  const key = styles.map((style) => style.code).join('');
  let shared = styleSets.get(key);
  if (shared === undefined) {
    shared = styles;
    bounded(styleSets).set(key, shared);
  }
  return shared;
}

function sameStyles(a: StyledChar['styles'], b: StyledChar['styles']): boolean {
  return a.length === b.length && a.every((style, i) => style === b[i]);
}

function lineOf(text: string): Line {
  let line = lines.get(text);
  if (line === undefined) {
    const chars = styledCharsFromTokens(tokensOf(text));
    // Characters between two codes got copies of the same styles: looked up once a run.
    let copied: StyledChar['styles'] | undefined;
    let shared: StyledChar['styles'] = [];
    for (const char of chars) {
      if (copied === undefined || !sameStyles(copied, char.styles)) {
        copied = char.styles;
        shared = sharedStyles(char.styles);
      }
      char.styles = shared;
    }
    line = { chars, id: nextLineId++ };
    bounded(lines).set(text, line);
  }
  return line;
}

function widthOf(text: string): number {
  let width = widths.get(text);
  if (width === undefined) {
    width = stringWidth(text);
    bounded(widths).set(text, width);
  }
  return width;
}

function widestLine(text: string): number {
  let width = blockWidths.get(text);
  if (width === undefined) {
    width = 0;
    for (const line of text.split('\n')) width = Math.max(width, widthOf(line));
    bounded(blockWidths).set(text, width);
  }
  return width;
}

/** One write's part of one row: its line's characters from column x. */
interface Segment {
  x: number;
  line: Line;
}

const blank: StyledChar = { type: 'char', value: ' ', fullWidth: false, styles: sharedStyles([]) };

/** A row's text from its writes in order — later characters over earlier ones — as Ink's Output draws it. */
function drawRow(width: number, segments: readonly Segment[]): string {
  const row = new Array<StyledChar | undefined>(width).fill(blank);
  for (const { x, line } of segments) {
    let offsetX = x;
    for (const character of line.chars) {
      row[offsetX] = character;
      const characterWidth = Math.max(1, widthOf(character.value));
      for (let index = 1; index < characterWidth; index++) row[offsetX + index] = { type: 'char', value: '', fullWidth: false, styles: character.styles };
      offsetX += characterWidth;
    }
  }
  // As ansi-tokenize's styledCharsToString writes it, character by character — whose codes change
  // only where the style does (the difference of a style with itself is nothing) — but a run of
  // characters sharing one style array is written without comparing its styles again.
  let text = '';
  let styles: StyledChar['styles'] | undefined;
  for (const cell of row) {
    if (cell === undefined) continue;
    if (styles === undefined) text += ansiCodesToString(cell.styles);
    else if (cell.styles !== styles) text += ansiCodesToString(diffAnsiCodes(styles, cell.styles));
    text += cell.value;
    styles = cell.styles;
  }
  if (styles !== undefined) text += ansiCodesToString(diffAnsiCodes(styles, []));
  return text.trimEnd();
}

export default class Output {
  width: number;
  height: number;
  private readonly operations: Operation[] = [];

  constructor(options: { width: number; height: number }) {
    this.width = options.width;
    this.height = options.height;
  }

  write(x: number, y: number, text: string, options: { transformers: OutputTransformer[] }): void {
    if (!text) return;
    this.operations.push({ type: 'write', x, y, text, transformers: options.transformers });
  }

  clip(clip: Clip): void {
    this.operations.push({ type: 'clip', clip });
  }

  unclip(): void {
    this.operations.push({ type: 'unclip' });
  }

  get(): { output: string; height: number } {
    const segments: Segment[][] = Array.from({ length: this.height }, () => []);
    const clips: Clip[] = [];
    for (const operation of this.operations) {
      if (operation.type === 'clip') clips.push(operation.clip);
      if (operation.type === 'unclip') clips.pop();
      if (operation.type !== 'write') continue;
      const { text, transformers } = operation;
      let { x, y } = operation;
      let textLines = text.split('\n');
      const clip = clips.at(-1);
      if (clip) {
        const clipHorizontally = typeof clip.x1 === 'number' && typeof clip.x2 === 'number';
        const clipVertically = typeof clip.y1 === 'number' && typeof clip.y2 === 'number';
        if (clipHorizontally) {
          const width = widestLine(text);
          if (x + width < clip.x1! || x > clip.x2!) continue;
        }
        if (clipVertically) {
          const height = textLines.length;
          if (y + height < clip.y1! || y > clip.y2!) continue;
        }
        if (clipHorizontally) {
          textLines = textLines.map((line) => {
            const from = x < clip.x1! ? clip.x1! - x : 0;
            const width = widthOf(line);
            const to = x + width > clip.x2! ? clip.x2! - x : width;
            return sliceAnsi(line, from, to);
          });
          if (x < clip.x1!) x = clip.x1!;
        }
        if (clipVertically) {
          const from = y < clip.y1! ? clip.y1! - y : 0;
          const height = textLines.length;
          const to = y + height > clip.y2! ? clip.y2! - y : height;
          textLines = textLines.slice(from, to);
          if (y < clip.y1!) y = clip.y1!;
        }
      }
      let offsetY = 0;
      for (const [index, text] of textLines.entries()) {
        const row = segments[y + offsetY];
        // As Ink does: a line off the frame is dropped without moving down.
        if (!row) continue;
        let line = text;
        for (const transformer of transformers) line = transformer(line, index);
        row.push({ x, line: lineOf(line) });
        offsetY++;
      }
    }
    const output = segments.map((row) => {
      const key = `${this.width}|${row.map(({ x, line }) => `${x}:${line.id}`).join(',')}`;
      let text = rows.get(key);
      if (text === undefined) {
        text = drawRow(this.width, row);
        bounded(rows).set(key, text);
      }
      return text;
    });
    return { output: output.join('\n'), height: output.length };
  }
}
