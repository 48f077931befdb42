import nunjucks from 'nunjucks';
import { guardFilters, installSandboxGlobals, sandboxTemplate, TemplateSandboxError } from './template-sandbox.js';
import { jinjaDialect, pySlice } from './template-dialect.js';
import { compileBounded } from './template-compiler.js';
import { templateLimits, withBudget } from './template-limits.js';

/**
 * Jinja-compatible templates, rendered the way strands-cli renders them: no autoescaping, an
 * undefined variable is an error (Jinja's StrictUndefined), and strands' own `truncate`,
 * `tojson` and `regex_search` filters. nunjucks' other Jinja filters (replace, title, default…)
 * stay available.
 */
const env = new nunjucks.Environment(null, { autoescape: false, throwOnUndefined: true });
installSandboxGlobals(env);

env.addFilter('truncate', (value: unknown, length = 100) => {
  const text = String(value ?? '');
  return text.length <= length ? text : `${text.slice(0, Math.max(0, length - 3))}...`;
});
// nunjucks' center and indent build their padding one space at a time: a 30-million-space pad is a
// chain of 30 million strings (about a gigabyte). Same results, the padding made in one piece.
env.addFilter('center', (value: unknown, width?: number) => {
  const text = String(value === null || value === undefined || value === false ? '' : value);
  const spaces = (width || 80) - text.length;
  return spaces <= 0 ? text : `${' '.repeat(Math.floor(spaces / 2))}${text}${' '.repeat(Math.ceil(spaces / 2))}`;
});
env.addFilter('indent', (value: unknown, width?: number, indentFirst?: boolean) => {
  const text = String(value === null || value === undefined || value === false ? '' : value);
  const pad = ' '.repeat(Math.max(0, Math.floor(width || 4)));
  return text === '' ? '' : text.split('\n').map((line, i) => (i === 0 && !indentFirst ? line : `${pad}${line}`)).join('\n');
});
env.addFilter('tojson', (value: unknown) => JSON.stringify(value ?? null));
env.addFilter('regex_search', (value: unknown, pattern: string) => {
  const match = new RegExp(pattern, 'i').exec(String(value ?? ''));
  return match ? (match[1] ?? match[0]) : '';
});

// Python's x[a:b], which templates reach through jinjaDialect's rewrite.
env.addFilter('pyslice', pySlice);

guardFilters(env);

/** Names of the filters templates can apply (strands' own and nunjucks' Jinja builtins). */
export function templateFilters(): ReadonlySet<string> {
  return new Set(Object.keys((env as unknown as { filters: Record<string, unknown> }).filters));
}

/** A template problem with its position inside the template text (1-based). */
export class TemplateError extends Error {
  override readonly name = 'TemplateError';
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(message);
  }
}

const cache = new Map<string, nunjucks.Template>();

function compile(source: string): nunjucks.Template {
  let template = cache.get(source);
  if (!template) {
    // Compiled now, so syntax errors surface at validation, not at first render; Python's slices rewritten first.
    template = sandboxTemplate(compileBounded(jinjaDialect(source), env));
    cache.set(source, template);
  }
  return template;
}

function toTemplateError(error: unknown): TemplateError {
  const raw = error instanceof Error ? error.message : String(error);
  // nunjucks prefixes "(unknown path) [Line 2, Column 5]\n  "; keep the position, drop the noise.
  const position = /\[Line (\d+), Column (\d+)\]/.exec(raw);
  const message = raw
    .replace(/^\(unknown path\)\s*(\[Line \d+, Column \d+\])?\s*/, '')
    .replace(/^Error: /, '')
    .trim();
  // nunjucks reports 1-based positions, except 0 for "at the very start".
  return new TemplateError(message, Math.max(1, Number(position?.[1] ?? 1)), Math.max(1, Number(position?.[2] ?? 1)));
}

/** Root names used in `{{ … }}` / `{% … %}` blocks that the context lacks: nunjucks never names them. */
function undefinedNames(source: string, context: Record<string, unknown>): string[] {
  const keywords = new Set(['if', 'elif', 'else', 'endif', 'for', 'endfor', 'in', 'not', 'and', 'or', 'is', 'set', 'true', 'false', 'none', 'True', 'False', 'None', 'loop', 'defined', 'undefined', 'range', 'cycler', 'joiner']);
  const missing = new Set<string>();
  for (const block of source.matchAll(/\{[{%]([\s\S]*?)[}%]\}/g)) {
    // Strip string literals and filter names before looking for identifiers.
    const code = (block[1] ?? '').replace(/(["'])(?:\\.|(?!\1).)*\1/g, '').replace(/\|\s*\w+/g, '');
    for (const name of code.matchAll(/(?<![.\w])([A-Za-z_]\w*)/g)) {
      const id = name[1] ?? '';
      if (!keywords.has(id) && !(id in context)) missing.add(id);
    }
  }
  return [...missing];
}

/** Throws a TemplateError if the template does not parse. */
export function checkTemplate(source: string): void {
  try {
    compile(source);
  } catch (error) {
    throw toTemplateError(error);
  }
}

/** What JavaScript throws when a render outgrows it anyway, in words (the limits should come first). */
function engineLimit(message: string): string | undefined {
  if (message.includes('Maximum call stack size exceeded')) return `the template nests too deep (macros call macros at most ${templateLimits.macroDepth} deep): a macro that calls itself needs a condition that ends it`;
  if (message.includes('Invalid string length') || message.includes('Invalid array length')) return 'the template made a string or list larger than JavaScript can hold; make it write less';
  return undefined;
}

/**
 * Renders a template with the given variables; undefined variables, and a render past
 * template-limits.ts (output size, list length, loop iterations, macro depth, time), throw a
 * TemplateError saying which.
 */
export function renderTemplate(source: string, context: Record<string, unknown>): string {
  if (!source.includes('{{') && !source.includes('{%')) return source;
  let template: nunjucks.Template;
  try {
    template = compile(source);
  } catch (error) {
    throw toTemplateError(error);
  }
  const { value, error, budget } = withBudget(() => template.render(context));
  if (error === undefined) return value!;
  const problem = toTemplateError(error);
  if (budget.stoppedBy) throw new TemplateError(budget.stoppedBy.message, problem.line, problem.column);
  const overflow = engineLimit(problem.message);
  if (overflow) throw new TemplateError(overflow, problem.line, problem.column);
  // nunjucks rewraps what the runtime throws and keeps only "<name>: <message>" of it.
  const prefix = `${new TemplateSandboxError('').name}: `;
  const sandbox = problem.message.indexOf(prefix);
  if (sandbox >= 0) throw new TemplateError(problem.message.slice(sandbox + prefix.length), problem.line, problem.column);
  // The names are only a guess at the cause when nunjucks says a value was missing.
  const missing = /undefined|null/.test(problem.message) ? undefinedNames(source, context) : [];
  if (missing.length === 0) throw problem;
  const known = Object.keys(context).sort().join(', ') || 'none';
  throw new TemplateError(`undefined variable ${missing.map((n) => `'${n}'`).join(', ')} (defined here: ${known}); pass it with --var ${missing[0]}=… or set inputs.values.${missing[0]}`, problem.line, problem.column);
}
