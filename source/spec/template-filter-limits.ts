import nunjucks from 'nunjucks';
import { budget, templateLimits } from './template-limits.js';

/**
 * Filters whose arguments decide how much they make: `center(2000000000)` builds its padding a
 * space at a time and takes the heap long before returning, so the size is refused from the
 * arguments, before the filter runs. Every filter's result is measured after it (see guardFilters).
 */

const { SafeString } = nunjucks.runtime;

/**
 * About how many characters a value becomes as text (String or JSON), counted until past `cap`:
 * strings and lists by their contents, anything else as a few characters.
 */
export function textSize(value: unknown, cap: number = templateLimits.outputChars): number {
  let total = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && total <= cap) {
    const item = pending.pop();
    if (typeof item === 'string') total += item.length;
    else if (item instanceof SafeString) total += String(item).length;
    else if (Array.isArray(item)) {
      total += item.length;
      for (const inner of item) pending.push(inner);
    } else if (item !== null && typeof item === 'object') {
      for (const [key, inner] of Object.entries(item)) {
        total += key.length + 4;
        pending.push(inner);
      }
    } else total += 24;
  }
  return total;
}

function length(value: unknown): number {
  return typeof value === 'string' || value instanceof SafeString ? String(value).length : 0;
}

function count(value: unknown, fallback: number): number {
  const n = Number(value ?? fallback);
  return Number.isFinite(n) ? n : 0;
}

/** How many times `old` occurs in `text`, counting no further than `cap`. */
function occurrences(text: string, old: string, cap: number): number {
  if (old === '') return text.length + 1;
  let n = 0;
  for (let at = text.indexOf(old); at >= 0 && n <= cap; at = text.indexOf(old, at + old.length)) n += 1;
  return n;
}

type Check = (args: unknown[]) => void;

const checks: Record<string, Check> = {
  center: ([text, width]) => budget().size(Math.max(length(text), count(width, 80)), `center(${String(width)})`),
  indent: ([text, width]) => {
    const lines = String(text ?? '').split('\n', templateLimits.outputChars).length;
    budget().size(length(text) + lines * count(width, 4), `indent(${String(width)})`);
  },
  batch: ([, size, fill]) => {
    if (fill) budget().items(count(size, 0), `batch(${String(size)}, …)`);
  },
  slice: ([, slices]) => budget().items(count(slices, 0), `slice(${String(slices)})`),
  list: ([value]) => budget().items(length(value), 'list'),
  reverse: ([value]) => budget().items(length(value), 'reverse'),
  replace: ([text, old, replacement, maxCount]) => {
    if (typeof text !== 'string' && !(text instanceof SafeString)) return;
    const source = String(text);
    const limit = count(maxCount, -1) >= 0 ? count(maxCount, -1) : Infinity;
    const times = old instanceof RegExp ? source.length + 1 : Math.min(limit, occurrences(source, String(old), templateLimits.outputChars));
    budget().size(source.length + times * textSize(replacement), 'replace');
  },
  join: ([list, delimiter]) => {
    const items = Array.isArray(list) ? list.length : 0;
    budget().size(textSize(list) + items * textSize(delimiter ?? ''), 'join');
  },
  string: ([value]) => budget().size(textSize(value), 'string'),
  dump: ([value]) => budget().size(textSize(value), 'dump'),
  tojson: ([value]) => budget().size(textSize(value), 'tojson'),
};

/** Refuses a filter call whose arguments would make more than the limits allow. */
export function checkFilterArguments(name: string, args: unknown[]): void {
  checks[name]?.(args);
  budget().tick();
}

/** Refuses a filter's result past the limits (a string past outputChars, a list past listItems). */
export function checkFilterResult(name: string, result: unknown): void {
  if (typeof result === 'string' || result instanceof SafeString) budget().size(String(result).length, name);
  else if (Array.isArray(result)) budget().items(result.length, name);
}
