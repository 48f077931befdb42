import { ansiCodesToString, diffAnsiCodes, styledCharsFromTokens, tokenize, type StyledChar, type Token } from '@alcalzone/ansi-tokenize';
import sliceAnsi from 'slice-ansi';
import stringWidth from 'string-width';
import { frameBegins, frameCache } from './frame-cache.js';
import { narrowAlone } from './text-width.js';

/**
 * Ink's `Output` (ink/build/output.js, 6.8), which turns the frame's text writes into the lines a
 * terminal gets, with one change: what it learns in a frame serves the next. Ink builds a new
 * Output every frame and tokenizes every character of every line again — the live run view redraws
 * ten times a second, and each row of streamed text on it cost ~0.5 ms a frame to rebuild though it
 * had not changed. Here a line is read once while it shows (a line of one-column characters and
 * colour codes as a few runs of one style, without segmenting it into characters), a row whose
 * writes are the same as in the frame before is not rebuilt, and a row is written a run of one
 * style at a time. Same writes in, same text out (test/unit/ink-output.test.ts compares the two on
 * random frames); scripts/build.mjs puts it in Ink's place in the bundle.
 */

type OutputTransformer = (line: string, index: number) => string;
interface Clip {
  x1: number | undefined;
  x2: number | undefined;
  y1: number | undefined;
  y2: number | undefined;
}
type Operation = { type: 'write'; x: number; y: number; text: string; transformers: OutputTransformer[] } | { type: 'clip'; clip: Clip } | { type: 'unclip' };

type Styles = StyledChar['styles'];

/** Characters of one style, each one column wide and a grapheme of its own (narrowAlone). */
interface Run {
  styles: Styles;
  text: string;
}

/**
 * A line as written: for a line of one-column characters and colour codes, its runs of one style;
 * for any other, its characters with their styles. `chars` of a line of runs is made only if a row
 * needs them (writes that overlap), which the run view's rows never do. `id` names the line in a
 * row's key.
 */
interface Line {
  id: number;
  text: string;
  runs?: Run[];
  /** Columns the runs take. */
  columns?: number;
  chars?: StyledChar[];
}

let nextLineId = 0;

const lines = frameCache<Line>();
const widths = frameCache<number>();
const blockWidths = frameCache<number>();
/** A row's text by its width and writes (x and line id of each, in order). */
const rows = frameCache<string>();

/** Entries kept by the caches that hold what never changes (escape codes, sets of styles): past this they are dropped and learnt again. */
const cacheLimit = 1024;

function bounded<K, V>(cache: Map<K, V>): Map<K, V> {
  if (cache.size >= cacheLimit) cache.clear();
  return cache;
}

/** SGR sequences (colours, dim, bold …) as ansi-tokenize reads them: CSI, digits and semicolons, `m`. */
const sgr = /\x1b\[[0-9;]*m/g;
const escapeTokens = new Map<string, Token[]>();

function codesOf(sequence: string): Token[] {
  let codes = escapeTokens.get(sequence);
  if (codes === undefined) {
    codes = tokenize(sequence);
    bounded(escapeTokens).set(sequence, codes);
  }
  return codes;
}

const styleSets = new Map<string, Styles>();

/** One array for each set of styles: a row's characters in one style share it, so a run of them is found by identity. */
function sharedStyles(styles: Styles): Styles {
  const key = styles.map((style) => style.code).join('');
  let shared = styleSets.get(key);
  if (shared === undefined) {
    shared = styles;
    bounded(styleSets).set(key, shared);
  }
  return shared;
}

function sameStyles(a: Styles, b: Styles): boolean {
  return a.length === b.length && a.every((style, i) => style === b[i]);
}

/**
 * A line's runs of one style, if it is SGR codes and characters of one column that never join a
 * neighbour — printable ASCII, and past it box drawing, a spinner's braille, "·", "—", "é" (every
 * line of the run view, and most of what a model says); undefined for any other. A row with a
 * spinner, a border or a dash in it went character by character every frame, the run view's
 * largest cost. Each run stands in as one character token between the line's codes, so
 * styledCharsFromTokens works out its styles (a handful of objects a line, not one per character).
 * Only its codes are tokenized (once each): tokenize segments the whole line into graphemes, which
 * costs more than the rest of a frame.
 */
function runsOf(text: string): Run[] | undefined {
  const texts: string[] = [];
  // The line's codes, with a stand-in (NUL, which no code holds) where each run stands.
  let skeleton = '';
  let at = 0;
  for (const match of text.matchAll(sgr)) {
    if (match.index > at) {
      const run = text.slice(at, match.index);
      if (!narrowRun(run)) return undefined;
      texts.push(run);
      skeleton += '\0';
    }
    skeleton += match[0];
    at = match.index + match[0].length;
  }
  if (text.length > at) {
    const run = text.slice(at);
    if (!narrowRun(run)) return undefined;
    texts.push(run);
    skeleton += '\0';
  }
  const styles = stylesOfRuns(skeleton);
  return texts.map((run, i) => ({ styles: styles[i]!, text: run }));
}

/**
 * The styles of each run of a line of runs, by its skeleton: lines of one shape (a row of dim text
 * between its codes, a step's line) are worked out once while they show, however their text moves.
 */
const skeletonStyles = new Map<string, Styles[]>();

function stylesOfRuns(skeleton: string): Styles[] {
  let styles = skeletonStyles.get(skeleton);
  if (styles === undefined) {
    const tokens: Token[] = [];
    for (const part of skeleton.split(/(\0)/)) {
      if (part === '\0') tokens.push({ type: 'char', value: ' ', fullWidth: false });
      else for (const code of part.match(sgr) ?? []) tokens.push(...codesOf(code));
    }
    styles = styledCharsFromTokens(tokens).map((char) => sharedStyles(char.styles));
    bounded(skeletonStyles).set(skeleton, styles);
  }
  return styles;
}

/** Text of one-column characters that are each a grapheme of their own: one cell a character, as ASCII. */
function narrowRun(run: string): boolean {
  if (/^[\x20-\x7e]*$/.test(run)) return true;
  for (let i = 0; i < run.length; i++) if (!narrowAlone(run.charCodeAt(i))) return false;
  return true;
}

/** A line's characters with their styles (as ansi-tokenize gives them), runs of one style sharing one styles array. */
function charsOf(line: Line): StyledChar[] {
  if (line.chars) return line.chars;
  if (line.runs) {
    line.chars = line.runs.flatMap(({ styles, text }) => Array.from(text, (value): StyledChar => ({ type: 'char', value, fullWidth: false, styles })));
    return line.chars;
  }
  const chars = styledCharsFromTokens(tokenize(line.text));
  // Characters between two codes got copies of the same styles: looked up once a run.
  let copied: Styles | undefined;
  let shared: Styles = [];
  for (const char of chars) {
    if (copied === undefined || !sameStyles(copied, char.styles)) {
      copied = char.styles;
      shared = sharedStyles(char.styles);
    }
    char.styles = shared;
  }
  line.chars = chars;
  return chars;
}

function lineOf(text: string): Line {
  let line = lines.get(text);
  if (line === undefined) {
    const runs = runsOf(text);
    line = runs ? { id: nextLineId++, text, runs, columns: runs.reduce((sum, run) => sum + run.text.length, 0) } : { id: nextLineId++, text };
    lines.set(text, line);
  }
  return line;
}

function widthOf(text: string): number {
  let width = widths.get(text);
  if (width === undefined) {
    width = stringWidth(text);
    widths.set(text, width);
  }
  return width;
}

function widestLine(text: string): number {
  let width = blockWidths.get(text);
  if (width === undefined) {
    width = 0;
    for (const line of text.split('\n')) width = Math.max(width, widthOf(line));
    blockWidths.set(text, width);
  }
  return width;
}

/** One write's part of one row: its line's characters from column x. */
interface Segment {
  x: number;
  line: Line;
}

const noStyles = sharedStyles([]);
const blank: StyledChar = { type: 'char', value: ' ', fullWidth: false, styles: noStyles };

/** Codes from one set of styles to another (from none: the row's first), by the shared arrays: a row of text between codes changes style a few times, the same few every frame. */
const transitions = new Map<Styles | undefined, Map<Styles, string>>();

function codesBetween(from: Styles | undefined, to: Styles): string {
  let fromHere = transitions.get(from);
  if (fromHere === undefined) {
    fromHere = new Map();
    bounded(transitions).set(from, fromHere);
  }
  let codes = fromHere.get(to);
  if (codes === undefined) {
    codes = ansiCodesToString(from === undefined ? to : diffAnsiCodes(from, to));
    bounded(fromHere).set(to, codes);
  }
  return codes;
}

/**
 * Cells written as ansi-tokenize's styledCharsToString writes them, character by character — codes
 * only where the style changes (the difference of a style with itself is nothing) — a run of one
 * style array at a time; then the codes that end the last style, and no trailing blanks.
 */
class RowText {
  private text = '';
  private styles: Styles | undefined;

  add(styles: Styles, text: string): void {
    if (styles !== this.styles) this.text += codesBetween(this.styles, styles);
    this.text += text;
    this.styles = styles;
  }

  end(): string {
    if (this.styles !== undefined) this.text += codesBetween(this.styles, noStyles);
    return this.text.trimEnd();
  }
}

/**
 * A row whose writes are lines of runs, left to right without overlapping or leaving a hole (as
 * every row of the run view is): its runs, with blanks between — the same text as drawing it cell
 * by cell. Undefined for any other row.
 */
function drawRuns(width: number, segments: readonly Segment[]): string | undefined {
  let end = 0;
  for (const { x, line } of segments) {
    // Over what an earlier write drew, past a gap beyond the row's width (cells never drawn), or at a
    // column between two (Ink's cells there are no cells of the row: nothing shows).
    if (line.columns === undefined || !Number.isInteger(x) || x < end || x > Math.max(width, end)) return undefined;
    end = x + line.columns;
  }
  const row = new RowText();
  let column = 0;
  for (const { x, line } of segments) {
    if (x > column) row.add(noStyles, ' '.repeat(x - column));
    for (const run of line.runs!) row.add(run.styles, run.text);
    column = x + line.columns!;
  }
  // The blanks after the last write would only be trimmed off again.
  return row.end();
}

/** A row's text from its writes in order — later characters over earlier ones — as Ink's Output draws it. */
function drawRow(width: number, segments: readonly Segment[]): string {
  const runs = drawRuns(width, segments);
  if (runs !== undefined) return runs;
  const row = new Array<StyledChar | undefined>(width).fill(blank);
  for (const { x, line } of segments) {
    let offsetX = x;
    for (const character of charsOf(line)) {
      row[offsetX] = character;
      const characterWidth = Math.max(1, widthOf(character.value));
      for (let index = 1; index < characterWidth; index++) row[offsetX + index] = { type: 'char', value: '', fullWidth: false, styles: character.styles };
      offsetX += characterWidth;
    }
  }
  const text = new RowText();
  for (const cell of row) if (cell !== undefined) text.add(cell.styles, cell.value);
  return text.end();
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
    frameBegins();
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
        rows.set(key, text);
      }
      return text;
    });
    return { output: output.join('\n'), height: output.length };
  }
}
