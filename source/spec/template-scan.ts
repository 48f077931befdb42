import nunjucks from 'nunjucks';
import { forbiddenKeys, templateDictMethods, templateStringMethods } from './template-sandbox.js';
import { jinjaDialect } from './template-dialect.js';
import { closestName } from '../closest-name.js';
import { rangeLength, tooLong, tooMany } from './template-limits.js';

export { closestName };

/**
 * The static half of the template checks: walks a template's nunjucks syntax tree and finds what
 * would fail or misbehave at run time, before any step runs — a reach for a constructor or a
 * call of anything but range/cycler/joiner/macros (defect: templates could run code), names no
 * input, `--var` or step provides, `steps[n]` for a step that has not run yet, `tasks.<id>` /
 * `branches.<id>` naming no task or branch or one that may not have run yet, unknown filters.
 */

/** A root name whose entries are read by id (`tasks.research`, `branches['web']`). */
export interface KeyedScope {
  /** What an entry is, for messages: "task", "branch". */
  noun: string;
  /** Every id the spec defines. */
  known: ReadonlySet<string>;
  /** The ids that have finished by the time this template renders. */
  available: { has(id: string): boolean };
  /** Why a known id is not available here, and what to do. */
  unavailable(id: string): string;
}

/** What a template can see where it renders. */
export interface TemplateScope {
  /** Root names the render context provides (variables, steps, last_response, step vars…). */
  names: ReadonlySet<string>;
  /** How many entries `steps` has when this template renders. */
  stepsAvailable: number;
  /** Says which steps exist there, for messages: "step 3's input runs after steps[0]–steps[1]". */
  stepsNote: string;
  /** Filters the environment defines. */
  filters: ReadonlySet<string>;
  /** Root names read by id, checked id by id. */
  keyed?: ReadonlyMap<string, KeyedScope>;
  /** Names other patterns or places provide but this one does not, each with what to use here instead. */
  elsewhere?: ReadonlyMap<string, string>;
}

/** unsafe: refused everywhere; filter: a filter no template can apply, refused everywhere too. */
export type FindingKind = 'unsafe' | 'undefined' | 'step' | 'filter';

/** One problem, at a 1-based line and column inside the template. */
export interface TemplateFinding {
  kind: FindingKind;
  line: number;
  column: number;
  message: string;
}

interface TemplateNode {
  typename: string;
  lineno: number;
  colno: number;
  value?: unknown;
  children?: TemplateNode[];
  [field: string]: unknown;
}

/** nunjucks' own globals; the sandbox lets templates call them. */
const globalFunctions = new Set(['range', 'cycler', 'joiner']);
/** Tests whose subject may be absent: `x is defined` guards its use. */
const guardTests = new Set(['defined', 'undefined', 'none']);
/** Filters whose subject may be absent: `x | default('…')`. */
const guardFilters = new Set(['default', 'd']);
/** Constructs that load other templates: a spec has none to load. */
const loaders = new Set(['Include', 'Import', 'FromImport', 'Extends', 'Super']);

/** `tasks.x` / `tasks['x']` as one name, `tasks.x`, for guards on ids; undefined for anything else. */
function keyedName(node: TemplateNode | undefined): string | undefined {
  if (node?.typename !== 'LookupVal') return undefined;
  const target = node.target as TemplateNode;
  const key = node.val as TemplateNode;
  return target.typename === 'Symbol' && key.typename === 'Literal' && typeof key.value === 'string' ? `${String(target.value)}.${key.value}` : undefined;
}

/** Names a condition proves defined: `x is defined` (or `tasks.x is defined`), alone or joined with `and`. */
function definedBy(cond: TemplateNode | undefined): string[] {
  if (!cond) return [];
  if (cond.typename === 'And') return [...definedBy(cond.left as TemplateNode), ...definedBy(cond.right as TemplateNode)];
  const left = cond.left as TemplateNode | undefined;
  const right = cond.right as TemplateNode | undefined;
  if (cond.typename !== 'Is' || right?.typename !== 'Symbol' || right.value !== 'defined') return [];
  const name = left?.typename === 'Symbol' ? String(left.value) : keyedName(left);
  return name === undefined ? [] : [name];
}

class Walker {
  readonly findings: TemplateFinding[] = [];
  /** Root names the template reads from its context (not its own set, loop or macro names). */
  readonly names = new Set<string>();

  constructor(private readonly scope: TemplateScope | undefined) {}

  private report(kind: FindingKind, node: TemplateNode, message: string): void {
    this.findings.push({ kind, line: node.lineno + 1, column: node.colno + 1, message });
  }

  /** Statements and expressions in order; `locals` grows with `{% set %}` as the walk passes it. */
  walk(node: unknown, locals: Map<string, boolean>, guarded = false): void {
    if (!node || typeof node !== 'object') return;
    const n = node as TemplateNode;
    switch (n.typename) {
      case 'Root':
      case 'NodeList':
      case 'Output':
      case 'Group':
      case 'Array':
      case 'Dict':
      case 'KeywordArgs':
        for (const child of n.children ?? []) this.walk(child, locals, guarded);
        return;
      case 'TemplateData':
      case 'Literal':
        return;
      case 'Pair':
        // A bare name as a dict key or keyword argument is a literal key, not a lookup.
        if ((n.key as TemplateNode).typename !== 'Symbol') this.walk(n.key, locals, guarded);
        this.walk(n.value, locals, guarded);
        return;
      case 'Symbol':
        this.name(n, locals, guarded);
        return;
      case 'LookupVal':
        this.lookup(n, locals, guarded);
        return;
      case 'FunCall':
        this.call(n, locals, guarded);
        return;
      case 'Filter':
      case 'FilterAsync': {
        const name = String((n.name as TemplateNode).value);
        if (this.scope && !this.scope.filters.has(name)) this.report('filter', n.name as TemplateNode, `unknown filter '${name}'${this.suggest(name, this.scope.filters)}`);
        const args = (n.args as TemplateNode).children ?? [];
        this.filterSize(name, args);
        for (const [i, arg] of args.entries()) this.walk(arg, locals, guarded || (i === 0 && guardFilters.has(name)));
        return;
      }
      case 'Is': {
        const test = n.right as TemplateNode;
        const testName = String((test.typename === 'FunCall' ? (test.name as TemplateNode).value : test.value) ?? '');
        this.walk(n.left, locals, guarded || guardTests.has(testName));
        if (test.typename === 'FunCall') for (const arg of (test.args as TemplateNode).children ?? []) this.walk(arg, locals, guarded);
        return;
      }
      case 'If':
      case 'IfAsync':
      case 'InlineIf': {
        this.walk(n.cond, locals, guarded);
        // `{% if x is defined %}` guards x's use in its body.
        const inner = new Map(locals);
        for (const name of definedBy(n.cond as TemplateNode)) inner.set(name, false);
        this.walk(n.body, inner, guarded);
        this.walk(n.else_, locals, guarded);
        return;
      }
      case 'For':
      case 'AsyncEach':
      case 'AsyncAll': {
        this.walk(n.arr, locals, guarded);
        const inner = new Map(locals);
        inner.set('loop', false);
        const target = n.name as TemplateNode;
        for (const symbol of target.typename === 'Array' ? (target.children ?? []) : [target]) inner.set(String(symbol.value), false);
        this.walk(n.body, inner, guarded);
        this.walk(n.else_, locals, guarded);
        return;
      }
      case 'Set': {
        this.walk(n.value ?? n.body, locals, guarded);
        const callable = this.isCallable(n.value as TemplateNode | null, locals);
        for (const target of (n.targets as TemplateNode[]) ?? []) locals.set(String(target.value), callable);
        return;
      }
      case 'Capture':
        this.walk(n.body, locals, guarded);
        return;
      case 'Macro':
      case 'Caller': {
        if (n.typename === 'Macro') locals.set(String((n.name as TemplateNode).value), true);
        const inner = new Map(locals);
        for (const name of ['caller', 'varargs', 'kwargs']) inner.set(name, name === 'caller');
        for (const arg of (n.args as TemplateNode).children ?? []) {
          if (arg.typename === 'Symbol') inner.set(String(arg.value), false);
          else for (const pair of arg.children ?? []) {
            this.walk(pair.value, locals, guarded);
            inner.set(String((pair.key as TemplateNode).value), false);
          }
        }
        this.walk(n.body, inner, guarded);
        return;
      }
      case 'Compare':
        this.walk(n.expr, locals, guarded);
        for (const op of (n.ops as TemplateNode[]) ?? []) this.walk(op.expr, locals, guarded);
        return;
      case 'Switch':
        this.walk(n.expr, locals, guarded);
        for (const c of (n.cases as TemplateNode[]) ?? []) {
          this.walk(c.cond, locals, guarded);
          this.walk(c.body, locals, guarded);
        }
        this.walk(n.default, locals, guarded);
        return;
      case 'Block':
        this.walk(n.body, locals, guarded);
        return;
      case 'Not':
      case 'Neg':
      case 'Pos':
        this.walk(n.target, locals, guarded);
        return;
      case 'In':
      case 'Or':
      case 'And':
      case 'Add':
      case 'Concat':
      case 'Sub':
      case 'Mul':
      case 'Div':
      case 'FloorDiv':
      case 'Mod':
      case 'Pow':
        this.walk(n.left, locals, guarded);
        this.walk(n.right, locals, guarded);
        return;
      default:
        // Fail closed: a construct this walk does not know is not run.
        this.report('unsafe', n, loaders.has(n.typename) ? `'${n.typename.toLowerCase()}' is not available in spec templates: there are no other templates to load` : `template construct '${n.typename}' is not supported in spec templates`);
    }
  }

  /** A literal argument that makes a filter's result too large for the render's limits (template-limits.ts). */
  private filterSize(name: string, args: TemplateNode[]): void {
    const arg = args[1];
    if (arg?.typename !== 'Literal' || typeof arg.value !== 'number') return;
    const past =
      name === 'center' || name === 'indent' ? tooLong(arg.value, `${name}(${arg.value})`)
      : name === 'batch' || name === 'slice' ? tooMany(arg.value, `${name}(${arg.value})`)
      : undefined;
    if (past) this.report('unsafe', arg, `${past}; acode stops a render past its limits`);
  }

  private suggest(name: string, candidates: Iterable<string>): string {
    const close = closestName(name, candidates);
    return close ? ` (did you mean '${close}'?)` : '';
  }

  private name(n: TemplateNode, locals: Map<string, boolean>, guarded: boolean): void {
    const name = String(n.value);
    if (forbiddenKeys.has(name)) {
      this.report('unsafe', n, `'${name}' cannot be used in a template: templates can read data and apply filters, nothing else`);
      return;
    }
    if (locals.has(name) || globalFunctions.has(name)) return;
    this.names.add(name);
    if (!this.scope || guarded || this.scope.names.has(name)) return;
    const instead = this.scope.elsewhere?.get(name);
    if (instead !== undefined) {
      this.report('step', n, `'${name}' is not available here: ${instead}`);
      return;
    }
    const known = [...this.scope.names, ...locals.keys()];
    this.report('undefined', n, `undefined variable '${name}'${this.suggest(name, known)}; declare it under inputs (required, optional or values) or pass --var ${name}=…`);
  }

  private lookup(n: TemplateNode, locals: Map<string, boolean>, guarded: boolean): void {
    const key = n.val as TemplateNode;
    if (key.typename === 'Literal' && forbiddenKeys.has(String(key.value))) {
      this.report('unsafe', key, `'${String(key.value)}' cannot be read in a template: templates can read data and apply filters, nothing else`);
    }
    // A name put together from strings (`x['const' ~ 'ructor']`, a filter's result) cannot be checked
    // here; the sandbox would refuse it only at render time, after the steps were paid for.
    if (builtString(key)) this.report('unsafe', key, `an attribute name built from strings cannot be checked: write the name literally (x.name or x['name'])`);
    const target = n.target as TemplateNode;
    const keyed = this.scope && !guarded && target.typename === 'Symbol' && !locals.has(String(target.value)) ? this.scope.keyed?.get(String(target.value)) : undefined;
    if (keyed && key.typename === 'Literal' && typeof key.value === 'string' && !locals.has(keyedName(n)!)) this.keyedLookup(String(target.value), keyed, key);
    if (this.scope && !guarded && this.scope.names.has('steps') && target.typename === 'Symbol' && target.value === 'steps' && !locals.has('steps') && key.typename === 'Literal' && typeof key.value === 'number') {
      const index = key.value;
      if (index < 0) this.report('step', key, `steps[${index}]: negative step indexes are not supported; use last_response for the latest step, or steps[n] with n counted from 0`);
      else if (index >= this.scope.stepsAvailable) this.report('step', key, `steps[${index}] does not exist here: ${this.scope.stepsNote}`);
    }
    this.walk(target, locals, guarded);
    this.walk(key, locals, guarded);
  }

  private keyedLookup(root: string, keyed: KeyedScope, key: TemplateNode): void {
    const id = String(key.value);
    if (!keyed.known.has(id)) {
      const ids = [...keyed.known];
      this.report('step', key, `${root}.${id}: there is no ${keyed.noun} '${id}'${this.suggest(id, ids)} (${keyed.noun} ids: ${ids.join(', ') || 'none'})`);
    } else if (!keyed.available.has(id)) {
      this.report('step', key, `${root}.${id}: ${keyed.unavailable(id)}`);
    }
  }

  /** Whether a `{% set %}` value is something the sandbox lets templates call. */
  private isCallable(value: TemplateNode | null, locals: Map<string, boolean>): boolean {
    if (!value) return false;
    if (value.typename === 'Symbol') return locals.get(String(value.value)) ?? globalFunctions.has(String(value.value));
    return value.typename === 'FunCall' && (value.name as TemplateNode).typename === 'Symbol' && (value.name as TemplateNode).value === 'joiner';
  }

  private call(n: TemplateNode, locals: Map<string, boolean>, guarded: boolean): void {
    const callee = n.name as TemplateNode;
    const name = callee.typename === 'Symbol' ? String(callee.value) : undefined;
    const method = callee.typename === 'LookupVal' && (callee.val as TemplateNode).typename === 'Literal' ? String((callee.val as TemplateNode).value) : undefined;
    const allowed = name !== undefined ? (locals.has(name) ? locals.get(name) === true : globalFunctions.has(name)) : method === 'next' || method === 'reset' || (method !== undefined && (templateStringMethods.has(method) || templateDictMethods.has(method)));
    if (!allowed) {
      const what = name ?? method;
      this.report('unsafe', callee, `${what === undefined ? 'a computed value' : `'${what}'`} cannot be called in a template: only range(), cycler(), joiner(), the template's own macros and string methods (lower(), strip(), startswith() …) can; use a filter (e.g. | upper) to transform a value`);
    }
    const args = (n.args as TemplateNode).children ?? [];
    if (name === 'range' && !locals.has(name) && args.length > 0 && args.every((arg) => arg.typename === 'Literal' && typeof arg.value === 'number')) {
      const past = tooMany(rangeLength(args.map((arg) => arg.value)), `range(${args.map((arg) => String(arg.value)).join(', ')})`);
      if (past) this.report('unsafe', callee, `${past}; acode stops a render past its limits`);
    }
    // A dict method (`nodes.items()`) names no key of the object: walk the object alone.
    if (method !== undefined && templateDictMethods.has(method) && callee.typename === 'LookupVal') this.walk(callee.target, locals, guarded);
    else if (callee.typename !== 'Symbol') this.walk(callee, locals, guarded);
    for (const arg of (n.args as TemplateNode).children ?? []) this.walk(arg, locals, guarded);
  }
}

export interface TemplateScan {
  findings: TemplateFinding[];
  /** Root names the template reads from its context. */
  names: Set<string>;
}

/** Parses a template and returns every finding; without a scope, only the sandbox's (unsafe) ones. */
export function scanTemplate(source: string, scope?: TemplateScope): TemplateScan {
  // The parser is public (nunjucks' index exports it) but absent from @types/nunjucks.
  const { parser } = nunjucks as unknown as { parser: { parse(src: string, extensions: unknown[], opts: object): TemplateNode } };
  const root = parser.parse(jinjaDialect(source), [], {});
  const walker = new Walker(scope);
  walker.walk(root, new Map());
  const findings = walker.findings.sort((a, b) => a.line - b.line || a.column - b.column);
  return { findings, names: walker.names };
}

/** A key expression that makes a string out of parts: concatenation, string arithmetic, a filter. */
function builtString(key: TemplateNode): boolean {
  if (key.typename === 'Concat' || key.typename === 'Filter') return true;
  if (key.typename !== 'Add') return false;
  const isString = (side: unknown) => (side as TemplateNode | undefined)?.typename === 'Literal' && typeof (side as TemplateNode).value === 'string';
  return isString(key.left) || isString(key.right) || builtString(key.left as TemplateNode) || builtString(key.right as TemplateNode);
}
