import nunjucks from 'nunjucks';

/**
 * nunjucks' compiler, changed where a template makes text: the generated code appends to its
 * output with `output += …` and joins strings with JavaScript's `+`, out of the runtime's sight,
 * so no hook could stop a loop that writes gigabytes. Here every append goes through
 * `runtime.append(buffer, value)` and every `~` / `+` through `runtime.concat` / `runtime.plus`,
 * which the sandboxed runtime (template-sandbox.ts) checks against the render's limits.
 */

interface CompilerNode {
  children: CompilerNode[];
  value?: unknown;
  left: CompilerNode;
  right: CompilerNode;
  lineno: number;
  colno: number;
}

interface NunjucksCompiler {
  buffer: string;
  throwOnUndefined: boolean;
  compile(node: unknown, frame?: unknown): void;
  compileLiteral(node: CompilerNode, frame: unknown): void;
  _emit(code: string): void;
  _emitLine(code: string): void;
  getCode(): string;
}

type CompilerClass = new (name: string | undefined, throwOnUndefined: boolean) => NunjucksCompiler;

const internals = nunjucks as unknown as {
  compiler: { Compiler: CompilerClass };
  parser: { parse(src: string, extensions: unknown[], opts: object): unknown };
  nodes: { TemplateData: new (...args: unknown[]) => CompilerNode };
  lib: { _prettifyError(path: string | undefined, withInternals: boolean, error: unknown): Error };
};

class BoundedCompiler extends internals.compiler.Compiler {
  /** nunjucks' compileOutput, each piece handed to runtime.append instead of `+=`. */
  compileOutput(node: CompilerNode, frame: unknown): void {
    for (const child of node.children) {
      if (child instanceof internals.nodes.TemplateData) {
        if (!child.value) continue;
        this._emit(`${this.buffer} = runtime.append(${this.buffer}, `);
        this.compileLiteral(child, frame);
        this._emitLine(');');
        continue;
      }
      this._emit(`${this.buffer} = runtime.append(${this.buffer}, runtime.suppressValue(`);
      if (this.throwOnUndefined) this._emit('runtime.ensureDefined(');
      this.compile(child, frame);
      if (this.throwOnUndefined) this._emit(`,${node.lineno},${node.colno})`);
      this._emit(', env.opts.autoescape));\n');
    }
  }

  /** The other appends (a block's text) are whole lines `<buffer> += <id>;`. */
  override _emitLine(code: string): void {
    const append = /^(\w+) \+= (\w+);$/.exec(code);
    super._emitLine(append && append[1] === this.buffer ? `${append[1]} = runtime.append(${append[1]}, ${append[2]});` : code);
  }

  compileConcat(node: CompilerNode, frame: unknown): void {
    this.binary('runtime.concat', node, frame);
  }

  compileAdd(node: CompilerNode, frame: unknown): void {
    this.binary('runtime.plus', node, frame);
  }

  private binary(fn: string, node: CompilerNode, frame: unknown): void {
    this._emit(`${fn}(`);
    this.compile(node.left, frame);
    this._emit(', ');
    this.compile(node.right, frame);
    this._emit(')');
  }
}

/**
 * Compiles a template's source into a nunjucks Template whose text-making code is bounded. Skips
 * nunjucks' transformer: it only rewrites async filters and `super()`, and spec templates have
 * neither (no async filter is registered; template-scan refuses `super`).
 */
export function compileBounded(source: string, env: nunjucks.Environment): nunjucks.Template {
  let code: string;
  try {
    const compiler = new BoundedCompiler(undefined, true);
    compiler.compile(internals.parser.parse(source, [], (env as unknown as { opts: object }).opts));
    code = compiler.getCode();
  } catch (error) {
    // As nunjucks' own compile reports it: "(unknown path) [Line 2, Column 5] …".
    throw internals.lib._prettifyError(undefined, false, error);
  }
  // nunjucks itself runs its compiled templates this way (Template._compile).
  const props = new Function(code)() as object;
  return new nunjucks.Template({ type: 'code', obj: props } as unknown as string, env, undefined, true);
}
