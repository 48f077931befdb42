import nunjucks from 'nunjucks';
import { checkFilterArguments, checkFilterResult, textSize } from './template-filter-limits.js';
import { budget, rangeLength } from './template-limits.js';

/**
 * The render-time half of the template sandbox (the other half is the static walk in
 * template-scan.ts, which refuses these forms before anything runs). A spec's templates may read
 * data and apply filters; they may not reach a function's constructor (which compiles and runs
 * arbitrary code) nor call any function but the few nunjucks globals and the template's own
 * macros. nunjucks hands every compiled template its runtime as an argument, so each of our
 * templates gets a copy of it whose member lookup and call refuse everything else — no global
 * patching, nothing else in the process affected. The same runtime keeps each render within
 * template-limits.ts: the bounded compiler (template-compiler.ts) routes every append and string
 * join through it, loops and macro calls pass through it, and range() and the filters are measured.
 */

/** Keys that lead from a value to its constructor or prototype, and from there to `Function`. */
export const forbiddenKeys: ReadonlySet<string> = new Set([
  'constructor',
  'prototype',
  '__proto__',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
]);

/**
 * Python's string methods that strands-cli's Jinja templates call (`nodes.a.response.lower()`,
 * `x.startswith('y')`), as Python answers them: the only methods a template may call on data.
 */
const stringMethods: Record<string, (text: string, ...args: unknown[]) => unknown> = {
  lower: (text) => text.toLowerCase(),
  upper: (text) => text.toUpperCase(),
  strip: (text, chars) => (typeof chars === 'string' ? trimChars(text, chars, true, true) : text.trim()),
  lstrip: (text, chars) => (typeof chars === 'string' ? trimChars(text, chars, true, false) : text.trimStart()),
  rstrip: (text, chars) => (typeof chars === 'string' ? trimChars(text, chars, false, true) : text.trimEnd()),
  startswith: (text, prefix) => text.startsWith(String(prefix)),
  endswith: (text, suffix) => text.endsWith(String(suffix)),
  title: (text) => text.replace(/[A-Za-z]+/g, (word) => word[0]!.toUpperCase() + word.slice(1).toLowerCase()),
  capitalize: (text) => (text ? text[0]!.toUpperCase() + text.slice(1).toLowerCase() : text),
  split: (text, separator) => (separator === undefined || separator === null ? text.trim().split(/\s+/).filter(Boolean) : text.split(String(separator))),
  replace: (text, from, to) => text.split(String(from)).join(String(to)),
  count: (text, part) => (String(part) === '' ? text.length + 1 : text.split(String(part)).length - 1),
  find: (text, part) => text.indexOf(String(part)),
  isdigit: (text) => /^\d+$/.test(text),
  isalpha: (text) => /^[A-Za-z]+$/.test(text),
};

/** Python's dict methods (`for k, v in nodes.items()`), for objects that have no key of that name. */
const dictMethods: Record<string, (object: Record<string, unknown>, ...args: unknown[]) => unknown> = {
  items: (object) => Object.entries(object),
  keys: (object) => Object.keys(object),
  values: (object) => Object.values(object),
  get: (object, key, fallback = null) => (typeof key === 'string' && Object.hasOwn(object, key) ? object[key] : fallback),
};

/** Names of the dict methods templates may call. */
export const templateDictMethods: ReadonlySet<string> = new Set(Object.keys(dictMethods));

/** Names of the string methods templates may call. */
export const templateStringMethods: ReadonlySet<string> = new Set(Object.keys(stringMethods));

function trimChars(text: string, chars: string, start: boolean, end: boolean): string {
  let from = 0;
  let to = text.length;
  while (start && from < to && chars.includes(text[from]!)) from++;
  while (end && to > from && chars.includes(text[to - 1]!)) to--;
  return text.slice(from, to);
}

/** Methods a cycler object may have called on it (`{{ c.next() }}`). */
const cyclerMethods = new Set(['next', 'reset']);

/** A refused template operation; its message says what templates may do instead. */
export class TemplateSandboxError extends Error {
  override readonly name = 'TemplateSandboxError';
}

const callable = new WeakSet<object>();
const cyclers = new WeakSet<object>();

function allow<T extends object>(fn: T): T {
  callable.add(fn);
  return fn;
}

/** The property key JavaScript would use (`x[['constructor']]` reads 'constructor'), refused if forbidden. */
function safeKey(key: unknown): string | number {
  const name = typeof key === 'number' ? key : String(key);
  if (typeof name === 'string' && forbiddenKeys.has(name)) {
    throw new TemplateSandboxError(`'${name}' cannot be read in a template: templates can read data and apply filters, nothing else`);
  }
  return name;
}

type Runtime = typeof nunjucks.runtime & {
  memberLookup(obj: unknown, key: unknown): unknown;
  callWrap(fn: unknown, name: string, context: unknown, args: unknown[]): unknown;
  contextOrFrameLookup(context: unknown, frame: unknown, name: string): unknown;
  makeMacro(...args: unknown[]): (...args: unknown[]) => unknown;
  fromIterator(value: unknown): unknown;
  append(buffer: string, value: unknown): string;
  concat(left: unknown, right: unknown): string;
  plus(left: unknown, right: unknown): unknown;
};

const base = nunjucks.runtime as Runtime;

/** A value as the text a template writes, its size refused before a huge list is joined into it. */
function asText(value: unknown, what: string): string {
  if (typeof value === 'string') return value;
  budget().size(textSize(value), what);
  return String(value);
}

/** How many times a `{% for %}` over this value runs. */
function iterations(value: unknown): number {
  if (typeof value === 'string' || Array.isArray(value)) return value.length;
  return value !== null && typeof value === 'object' ? Object.keys(value).length : 0;
}

/** The runtime our templates render with. */
const sandboxRuntime: Runtime = {
  ...base,
  memberLookup(obj, rawKey) {
    const key = safeKey(rawKey);
    if (obj === undefined || obj === null) return undefined;
    if (typeof obj === 'string' && typeof key === 'string' && Object.hasOwn(stringMethods, key)) return allow((...args: unknown[]) => stringMethods[key]!(obj, ...args));
    if (typeof obj === 'object' && !Array.isArray(obj) && typeof key === 'string' && Object.hasOwn(dictMethods, key) && !Object.hasOwn(obj, key)) {
      return allow((...args: unknown[]) => dictMethods[key]!(obj as Record<string, unknown>, ...args));
    }
    const value = (obj as Record<string | number, unknown>)[key];
    if (typeof value !== 'function') return value;
    // A function read from data is never callable; only a cycler's own methods are.
    if (cyclers.has(obj as object) && typeof key === 'string' && cyclerMethods.has(key)) return allow((...args: unknown[]) => (value as (...a: unknown[]) => unknown).apply(obj, args));
    return value;
  },
  callWrap(fn, name, context, args) {
    if (typeof fn !== 'function' || !callable.has(fn)) {
      throw new TemplateSandboxError(`'${name}' cannot be called in a template: only range(), cycler(), joiner(), the template's own macros and string methods (lower(), strip(), startswith() …) can; use a filter (e.g. | upper) to transform a value`);
    }
    // Every macro call passes here: a macro calling itself meets the depth limit, not the stack.
    const render = budget();
    render.enterMacro(name);
    try {
      return (fn as (...a: unknown[]) => unknown).apply(context, args);
    } finally {
      render.leaveMacro();
    }
  },
  contextOrFrameLookup(context, frame, name) {
    safeKey(name);
    budget().tick();
    return base.contextOrFrameLookup(context, frame, name);
  },
  fromIterator(value) {
    const items = base.fromIterator(value);
    budget().loop(iterations(items));
    return items;
  },
  append(buffer, value) {
    const text = asText(value, "the template's output");
    budget().output(buffer.length + text.length);
    return buffer + text;
  },
  concat(left, right) {
    budget().size(textSize(left) + textSize(right), 'joining strings with ~');
    return `${String(left)}${String(right)}`;
  },
  plus(left, right) {
    if (typeof left === 'number' && typeof right === 'number') return left + right;
    budget().size(textSize(left) + textSize(right), 'joining strings with +');
    return (left as string) + (right as string);
  },
  makeMacro(...args) {
    return allow(base.makeMacro(...args));
  },
};

/** Replaces an environment's function globals with ones the sandbox lets templates call. */
export function installSandboxGlobals(env: nunjucks.Environment): void {
  const globals = (env as unknown as { globals: Record<string, (...args: unknown[]) => unknown> }).globals;
  const { range, cycler, joiner } = globals;
  for (const name of Object.keys(globals)) delete globals[name];
  if (range) {
    env.addGlobal('range', allow((...args: unknown[]) => {
      budget().items(rangeLength(args), `range(${args.map(String).join(', ')})`);
      return range(...args);
    }));
  }
  if (cycler) {
    env.addGlobal('cycler', allow((...args: unknown[]) => {
      const made = cycler(...args) as object;
      cyclers.add(made);
      return made;
    }));
  }
  if (joiner) env.addGlobal('joiner', allow((...args: unknown[]) => allow(joiner(...args) as (...a: unknown[]) => unknown)));
}

/**
 * Wraps every filter of the environment (nunjucks' own and ours; call it after the last addFilter)
 * so that no filter is handed a function or a forbidden key: filters read attributes and call
 * callbacks themselves (`sum('constructor')`, `groupby(fn)`, `replace(re, fn)`), out of the
 * runtime's sight.
 */
export function guardFilters(env: nunjucks.Environment): void {
  const filters = (env as unknown as { filters: Record<string, (...args: unknown[]) => unknown> }).filters;
  for (const [name, filter] of Object.entries(filters)) {
    filters[name] = function (this: unknown, ...args: unknown[]) {
      args.forEach((arg, i) => {
        if (typeof arg === 'function') throw new TemplateSandboxError(`the ${name} filter cannot be given a function in a template: pass it data`);
        // The filtered value itself is data (a response may well read "constructor"); its parameters name attributes.
        if (i > 0 && typeof arg === 'string') safeKey(arg);
      });
      checkFilterArguments(name, args);
      const result = filter.apply(this, args);
      checkFilterResult(name, result);
      return result;
    };
  }
}

/** Makes a compiled template render with the sandboxed runtime (its blocks and macros inherit it). */
export function sandboxTemplate(template: nunjucks.Template): nunjucks.Template {
  const compiled = template as unknown as { rootRenderFunc: (env: unknown, context: unknown, frame: unknown, runtime: unknown, cb: unknown) => unknown };
  const root = compiled.rootRenderFunc;
  compiled.rootRenderFunc = (env, context, frame, _runtime, cb) => root(env, context, frame, sandboxRuntime, cb);
  return template;
}
