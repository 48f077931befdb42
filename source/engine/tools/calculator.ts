import {
  absDependencies,
  acosDependencies,
  addDependencies,
  asinDependencies,
  atan2Dependencies,
  atanDependencies,
  cbrtDependencies,
  ceilDependencies,
  cosDependencies,
  coshDependencies,
  create,
  divideDependencies,
  eDependencies,
  evaluateDependencies,
  expDependencies,
  factorialDependencies,
  fixDependencies,
  floorDependencies,
  formatDependencies,
  gcdDependencies,
  hypotDependencies,
  lcmDependencies,
  log10Dependencies,
  log2Dependencies,
  logDependencies,
  maxDependencies,
  minDependencies,
  modDependencies,
  multiplyDependencies,
  piDependencies,
  powDependencies,
  roundDependencies,
  signDependencies,
  sinDependencies,
  sinhDependencies,
  sqrtDependencies,
  subtractDependencies,
  tanDependencies,
  tanhDependencies,
  tauDependencies,
  unaryMinusDependencies,
  unaryPlusDependencies,
  type FactoryFunctionMap,
  type MathNode,
} from 'mathjs';
import { ToolInputError } from './confined-path.js';

/**
 * mathjs with only arithmetic and the usual scalar functions: its expression parser never reaches
 * JavaScript's eval, and with no matrix builders (ones, range, zeros), no `import`, no units and no
 * functions defined in the expression (checked below), an expression costs time in proportion to
 * its length: a model cannot make the run allocate or loop without end.
 */
// mathjs's typings call each `…Dependencies` possibly undefined; every one named here exists.
const math = create({
  evaluateDependencies,
  formatDependencies,
  addDependencies,
  subtractDependencies,
  multiplyDependencies,
  divideDependencies,
  modDependencies,
  powDependencies,
  unaryMinusDependencies,
  unaryPlusDependencies,
  sqrtDependencies,
  cbrtDependencies,
  absDependencies,
  expDependencies,
  logDependencies,
  log10Dependencies,
  log2Dependencies,
  sinDependencies,
  cosDependencies,
  tanDependencies,
  asinDependencies,
  acosDependencies,
  atanDependencies,
  atan2Dependencies,
  sinhDependencies,
  coshDependencies,
  tanhDependencies,
  floorDependencies,
  ceilDependencies,
  roundDependencies,
  fixDependencies,
  signDependencies,
  minDependencies,
  maxDependencies,
  hypotDependencies,
  gcdDependencies,
  lcmDependencies,
  factorialDependencies,
  piDependencies,
  eDependencies,
  tauDependencies,
} as unknown as FactoryFunctionMap);

/** Longer expressions are refused: no arithmetic a model asks for needs more. */
export const maxExpressionChars = 2000;

/** The node types an expression may hold: numbers, names, operators, calls of the functions above, `x = …; x * 2`. */
const allowedNodes = new Set(['ConstantNode', 'SymbolNode', 'OperatorNode', 'ParenthesisNode', 'FunctionNode', 'AssignmentNode', 'BlockNode']);

/** Functions a call may name: every function this instance has, and none that parses again (evaluate). */
const callable = new Set(['sqrt', 'cbrt', 'abs', 'exp', 'log', 'log10', 'log2', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'atan2', 'sinh', 'cosh', 'tanh', 'floor', 'ceil', 'round', 'fix', 'sign', 'min', 'max', 'hypot', 'gcd', 'lcm', 'factorial', 'add', 'subtract', 'multiply', 'divide', 'mod', 'pow']);

function check(root: MathNode): void {
  root.traverse((node) => {
    if (!allowedNodes.has(node.type)) throw new ToolInputError(`the calculator takes numbers, + - * / ^ % !, parentheses and functions (${[...callable].join(', ')}); not ${node.type.replace(/Node$/, '').toLowerCase()} expressions`);
    if (node.type === 'FunctionNode') {
      const name = (node as MathNode & { fn: { name?: string } }).fn.name;
      if (name === undefined || !callable.has(name)) throw new ToolInputError(`unknown function '${name ?? node.toString()}' (the calculator has ${[...callable].join(', ')})`);
    }
    if (node.type === 'AssignmentNode' && (node as MathNode & { object: MathNode }).object.type !== 'SymbolNode') throw new ToolInputError('only a name can be assigned (x = 2)');
  });
}

/**
 * Evaluates an arithmetic expression as strands-cli's calculator answers it: `expression = result`.
 * Python's `**` is read as `^`, as its calculator reads it.
 */
export function calculate(expression: unknown): string {
  if (typeof expression !== 'string' || expression.trim() === '') throw new ToolInputError("'expression' is required");
  if (expression.length > maxExpressionChars) throw new ToolInputError(`the expression is ${expression.length} characters; at most ${maxExpressionChars}`);
  const source = expression.trim();
  if (source.includes('//')) throw new ToolInputError("'//' is not read here: write floor(a / b)");
  const read = source.replace(/\*\*/g, '^');
  let tree: MathNode;
  try {
    tree = math.parse(read);
  } catch (error) {
    throw new ToolInputError(`cannot read the expression: ${(error as Error).message}`);
  }
  check(tree);
  let value: unknown;
  try {
    value = tree.evaluate(new Map());
  } catch (error) {
    throw new ToolInputError(`cannot evaluate the expression: ${(error as Error).message}`);
  }
  // A block (`x = 2; x * 3`) answers with each statement's value: the last one is the answer.
  const entries = (value as { entries?: unknown[] } | null)?.entries;
  const answer = Array.isArray(entries) ? entries.at(-1) : value;
  if (typeof answer === 'number' && !Number.isFinite(answer)) {
    throw new ToolInputError(Number.isNaN(answer) ? 'the result is not a number' : 'division by zero or a result too large (infinite)');
  }
  return `${source} = ${math.format(answer, { precision: 14 })}`;
}
