import { hasTerminalControls, terminalText } from '../printable-text.js';

/**
 * The one place that keeps secrets out of what acode stores and prints. It knows two kinds of
 * secret: the values in use (the provider's API key, a spec's `env.secrets`), registered once, and
 * credential-shaped text anyone could recognise (an Authorization, x-api-key or api-key value, a
 * Bearer token, an `sk-…` / `sk-ant-…` key) even when nobody registered it.
 *
 * A registered value is redacted whole and in pieces: every run of `fragmentLength` or more of its
 * characters, wherever it appears (a server that echoes the key split over two lines, cut short,
 * or JSON-escaped inside another JSON string still leaks no 8 characters of it). Values shorter
 * than `minSecretLength` are not registered: they cannot be told from ordinary words, and real
 * keys are far longer. A registered value made of ordinary words (a weak password) redacts those
 * words wherever they appear — the price of never printing 8 characters of a secret.
 *
 * Pure, with no package behind it; the engine, the providers and the store all use it. Its cost is
 * linear in the text (a skipping scan for the registered pieces, one regular expression), whatever
 * the number of registered secrets.
 */

/** Registered values shorter than this are ignored (see above). */
export const minSecretLength = 8;
/** A piece of a registered value this long or longer is redacted wherever it appears. */
export const fragmentLength = 8;
/** What a secret is replaced with: no character of it can start a credential shape again, so redacting twice changes nothing. */
export const redactedMark = '[REDACTED]';

/** Slots of the pair table: a pair of Latin-1 characters each has its own; others share (which only shortens a skip). */
const pairSlots = 1 << 16;

/** The slot of the pair of characters `a`, `b`. */
function pairSlot(a: number, b: number): number {
  return ((a << 8) ^ b) & (pairSlots - 1);
}

// Characters a token is made of: base64(url), hex, the `-`/`_`/`.` keys use. A credential value needs
// a digit, so words in prose ("Bearer authentication", "api_key=YOUR_KEY") are left alone.
const tokenChars = '[A-Za-z0-9._~+/=-]';
const credential = `(?=${tokenChars}*\\d)${tokenChars}`;
const quote = `(?:\\\\*["'])?`;
/**
 * Credential shapes, each keeping what names the value (the header name, the scheme) and losing the
 * value: header-style `name: value` / `"name":"value"` / `name=value` (also inside escaped JSON),
 * a Bearer or Basic credential anywhere, an OpenAI / Anthropic style `sk-…` key anywhere.
 */
const shapes = new RegExp(
  [
    `(\\b(?:proxy-)?authorization|\\bx-api-key|\\bapi[-_]?key|\\bx-goog-api-key)(${quote}\\s*[:=]\\s*${quote}\\s*(?:(?:bearer|basic|token)\\s+)?)(${credential}{8,})`,
    `(\\b(?:bearer|basic))(\\s+)(${credential}{16,})`,
    `()()(\\bsk-(?=[A-Za-z0-9_-]*\\d)[A-Za-z0-9_-]{16,})`,
  ].join('|'),
  'gi',
);

/** A word every credential shape contains: text without one (most text) skips the full expression. */
const shapeHint = /authoriz|api[-_]?key|bearer|basic|sk-/i;

function replaceShape(_match: string, ...groups: (string | undefined)[]): string {
  for (let g = 0; g < 9; g += 3) {
    if (groups[g + 2] !== undefined) return `${groups[g] ?? ''}${groups[g + 1] ?? ''}${redactedMark}`;
  }
  return redactedMark;
}

/**
 * The value in base64 and base64url, as servers echo an Authorization header in some auth errors:
 * whole, and as it reads inside a longer encoded text (`Basic base64(user:key)`), where the bytes
 * before it shift it by 0, 1 or 2 bytes: there the first and last 4 characters also encode bytes
 * that are not the key's, so only the characters between, which encode the key alone, are a form.
 */
function base64Forms(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const forms: string[] = [];
  for (let shift = 0; shift < 3; shift++) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    if (shift === 0) forms.push(encoded, encoded.replace(/=+$/, ''));
    forms.push(encoded.slice(shift === 0 ? 0 : 4, -4));
  }
  return forms.flatMap((form) => [form, form.replaceAll('+', '-').replaceAll('/', '_')]);
}

/** The ways a value is written where it might be echoed back: as is, JSON-escaped (once, twice, with `\/`), URL-encoded, base64. */
function encodings(value: string): string[] {
  const json = JSON.stringify(value).slice(1, -1);
  const forms = [value, json, json.replaceAll('/', '\\/'), JSON.stringify(json).slice(1, -1), encodeURIComponent(value), ...base64Forms(value)];
  return [...new Set(forms)];
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Knows the secrets in use and removes them, and anything shaped like a credential, from text. */
/**
 * The leading words of a key that name its kind rather than hide anything — `sk-proj-`,
 * `sk-ant-api03-`, `ghp_` — lowercase groups each ending in `-` or `_`; none if fewer than
 * minSecretLength characters would be left after them.
 */
export function publicPrefix(value: string): string {
  const prefix = /^(?:[a-z][a-z0-9]*[-_])+/.exec(value)?.[0] ?? '';
  return value.length - prefix.length >= minSecretLength ? prefix : '';
}

export class Redactor {
  /** Every `fragmentLength`-character window of every registered value (in each of its encodings). */
  private readonly fragments = new Set<string>();
  /**
   * For each pair of characters, how far a window of text may move on when it ends with that pair
   * and is no piece (Wu–Manber's shift): fragmentLength - 1 for a pair in no piece, 0 for a pair
   * that ends one. Text unlike any key (most text, and an endless run of one letter) is read a
   * pair every 7 characters instead of a hash at every one: 64 MiB streamed took seconds.
   */
  private readonly shifts = new Uint8Array(pairSlots).fill(fragmentLength - 1);
  private readonly registered = new Set<string>();
  /** Text of this machine's that looks like a credential (a folder `sk-learn-experiments-2024`): see allow(). */
  private readonly allowed = new Set<string>();

  /** Adds a secret value; undefined, empty and too-short values are ignored (see minSecretLength). */
  register(value: string | undefined): void {
    if (value === undefined || value.length < minSecretLength || this.registered.has(value)) return;
    this.registered.add(value);
    for (const form of encodings(value)) {
      // Windows wholly inside the key's public prefix (`sk-proj-`, `sk-ant-api03-`) are no secret:
      // every key of that kind starts so, and text about keys names it.
      const open = publicPrefix(form).length;
      for (let i = 0; i + fragmentLength <= form.length; i++) {
        if (i + fragmentLength <= open) continue;
        const fragment = form.slice(i, i + fragmentLength);
        this.fragments.add(fragment);
        // The pair ending at q: a window ending with it may hold this piece fragmentLength - 1 - q characters on.
        for (let q = 1; q < fragmentLength; q++) {
          const slot = pairSlot(fragment.charCodeAt(q - 1), fragment.charCodeAt(q));
          this.shifts[slot] = Math.min(this.shifts[slot]!, fragmentLength - 1 - q);
        }
      }
    }
  }

  /**
   * Marks `text` — a path of the person's own, from this machine, never from a model or a server —
   * as no credential: a credential shape wholly inside it is left alone wherever it is printed or
   * stored ("wrote …/sk-learn-experiments-2024/report.md"). Registered secrets in it still go.
   */
  allow(text: string | undefined): void {
    if (text !== undefined && shapeHint.test(text)) this.allowed.add(text);
  }

  /** `text` with every registered secret (whole or any 8+ character piece) and every credential-shaped value replaced by [REDACTED]. */
  redact(text: string): string {
    if (text.length < fragmentLength) return text;
    return this.behindUnprinted(this.redactVisible(text), (seen) => this.redactVisible(seen));
  }

  private redactVisible(text: string): string {
    const shaped = shapeHint.test(text) ? this.replaceShapes(text) : text;
    return this.knownVisible(shaped);
  }

  /**
   * `text` as redacted, unless a secret hides behind what terminalText removes (printable-text.ts):
   * a key with a BEL or an ESC sequence every few characters has no 8-character piece here, and is
   * whole once printed. A line holding such a secret is given as printed, redacted — its control
   * characters gone with the secret; every other line, and any text without one, stays exactly as
   * it is. Text without a control character (most text, multi-line answers too) costs one scan.
   */
  private behindUnprinted(text: string, clean: (seen: string) => string): string {
    if (text.length < fragmentLength || !hasTerminalControls(text)) return text;
    // Nothing registered and no credential's word: nothing can hide (every run without a key).
    if (this.fragments.size === 0 && !shapeHint.test(terminalText(text))) return text;
    let changed = false;
    const lines = text.split('\n').map((line) => {
      if (line.length < fragmentLength || !hasTerminalControls(line)) return line;
      const seen = terminalText(line);
      const cleaned = clean(seen);
      if (cleaned === seen) return line;
      changed = true;
      return cleaned;
    });
    return changed ? lines.join('\n') : text;
  }

  /** The credential shapes of `text` replaced, but those wholly inside an allowed text. */
  private replaceShapes(text: string): string {
    const spans: [number, number][] = [];
    for (const own of this.allowed) {
      for (let at = text.indexOf(own); at >= 0; at = text.indexOf(own, at + 1)) spans.push([at, at + own.length]);
    }
    if (spans.length === 0) return text.replace(shapes, replaceShape);
    return text.replace(shapes, (match: string, ...groups: unknown[]) => {
      // After the 9 groups: the match's offset.
      const at = groups[9] as number;
      return spans.some(([start, end]) => at >= start && at + match.length <= end) ? match : replaceShape(match, ...(groups.slice(0, 9) as (string | undefined)[]));
    });
  }

  /**
   * Only the registered values (whole or any 8+ character piece), without the shape rules: for
   * content that must otherwise stay exactly as written, such as a model's answer, whose code may
   * legitimately hold `api_key = "changeme123"`. Every window that is a piece of a registered
   * value is marked; overlapping windows merge into one redaction.
   */
  redactKnown(text: string): string {
    if (text.length < fragmentLength) return text;
    return this.behindUnprinted(this.knownVisible(text), (seen) => this.knownVisible(seen));
  }

  private knownVisible(text: string): string {
    // A key seen whole goes whole, its public prefix too; pieces of it go by the windows below.
    for (const value of this.registered) if (text.includes(value)) text = text.split(value).join(redactedMark);
    const last = text.length - fragmentLength;
    if (last < 0 || this.fragments.size === 0) return text;
    let out = '';
    let copied = 0;
    let spanStart = -1;
    let spanEnd = -1;
    const shifts = this.shifts;
    for (let i = 0; i <= last; i++) {
      // No window from i to i + shift - 1 can be a piece: its last pair would sit in the piece where none does.
      const shift = shifts[pairSlot(text.charCodeAt(i + fragmentLength - 2), text.charCodeAt(i + fragmentLength - 1))]!;
      if (shift > 0) {
        i += shift - 1;
        continue;
      }
      if (!this.fragments.has(text.slice(i, i + fragmentLength))) continue;
      if (i <= spanEnd) {
        spanEnd = i + fragmentLength;
        continue;
      }
      if (spanStart >= 0) {
        out += text.slice(copied, spanStart) + redactedMark;
        copied = spanEnd;
      }
      spanStart = i;
      spanEnd = i + fragmentLength;
    }
    if (spanStart < 0) return text;
    return out + text.slice(copied, spanStart) + redactedMark + text.slice(spanEnd);
  }

  /**
   * Every string inside plain objects and arrays redacted (`known`: the registered values only, as
   * redactKnown); parts with nothing to redact are the same objects as before, so a clean event
   * costs no copy.
   */
  redactDeep<T>(value: T, known = false): T {
    if (typeof value === 'string') return (known ? this.redactKnown(value) : this.redact(value)) as T;
    if (typeof value !== 'object' || value === null) return value;
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        const clean = this.redactDeep(item, known);
        if (clean !== item) (copy ??= value.slice())[i] = clean;
      }
      return (copy ?? value) as T;
    }
    if (!isPlainObject(value)) return value;
    let copy: Record<string, unknown> | undefined;
    for (const key of Object.keys(value)) {
      const item = value[key];
      const clean = this.redactDeep(item, known);
      if (clean !== item) (copy ??= { ...value })[key] = clean;
    }
    return (copy ?? value) as T;
  }

  /** JSON.stringify of the value with every string in it redacted: how everything acode stores is serialized. */
  stringify(value: unknown): string {
    return JSON.stringify(this.redactDeep(value));
  }
}

/**
 * The process's redactor. The provider's key is registered when the provider is made and a spec's
 * `env.secrets` when it is run; every store write, event and printed line passes through it.
 */
export const secrets = new Redactor();

/** `secrets.redact`: for a line about to be printed or stored. */
export function redact(text: string): string {
  return secrets.redact(text);
}

/** `secrets.redactKnown`: the keys in use only, for content that must otherwise stay as written. */
export function redactKnown(text: string): string {
  return secrets.redactKnown(text);
}
