import type { PatternSpec, WorkflowSpec } from './schema.js';
import type { ChainStep } from './step-schemas.js';
import type { TemplateScope } from './template-scan.js';
import { isAgentCliStep, isApprovalStep } from './chain-steps.js';

/** A path into the spec, as YAML positions and messages name it. */
export type SpecPath = (string | number)[];
/** Reports one finding at the YAML node a path names. */
export type PathReport = (path: SpecPath, message: string) => void;

/** One pattern type's part of a spec: `pattern.config` as that type writes it. */
export type PatternOf<T extends PatternSpec['type']> = Extract<PatternSpec, { type: T }>;

/**
 * What the spec layer knows of one pattern type, beside its zod schema: every question `validate`,
 * `run` and the template checks ask of a pattern goes through one of these (spec/pattern-kinds.ts
 * keys them by type, so a new pattern is one module and the compiler names what it still lacks).
 */
export interface SpecKind<P extends PatternSpec> {
  /** Names the pattern gives its templates at run time (never a `--var`'s to claim unused). */
  names: readonly string[];
  /** What the schema cannot say: agents that exist, ids unique, references that resolve. */
  check(spec: WorkflowSpec, pattern: P, error: PathReport, warn: PathReport): void;
  /** Every template field under `pattern`, with its path (from the spec's root) for error positions. */
  templateFields(pattern: P): Iterable<[SpecPath, string]>;
  /** The contexts the pattern field at `path` renders in. */
  fieldScopes(spec: WorkflowSpec, pattern: P, path: readonly PropertyKey[], variables: readonly string[]): TemplateScope[];
  /** The contexts of every place that runs `agent` (its prompt renders in each). */
  agentScopes(spec: WorkflowSpec, pattern: P, agent: string, variables: readonly string[]): TemplateScope[];
  /** What artifacts see once the pattern has finished. */
  artifactScope(spec: WorkflowSpec, pattern: P, variables: readonly string[]): TemplateScope;
  /** The shape in one phrase, for `acode validate`: "chain, 3 steps". */
  describe(spec: WorkflowSpec, pattern: P): string;
}

/** The template fields of one step: an agent's input, or an approval's prompt and context. */
export function* stepFields(step: ChainStep | { type: 'approval' | 'hitl'; prompt: string; context_display?: string } | { agent: string; input: string } | { type: 'agent_cli'; prompt: string }, at: SpecPath): Generator<[SpecPath, string]> {
  if (isAgentCliStep(step)) {
    yield [[...at, 'prompt'], step.prompt];
    return;
  }
  if (!isApprovalStep(step)) {
    yield [[...at, 'input'], step.input];
    return;
  }
  yield [[...at, 'prompt'], step.prompt];
  if (step.context_display !== undefined) yield [[...at, 'context_display'], step.context_display];
}

/** The path of `pattern.config` in a spec. */
export const configPath: SpecPath = ['pattern', 'config'];
