import type { z } from 'zod';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { knownPatternTypes, specSchema, supportedPatternTypes, type WorkflowSpec } from './schema.js';
import type { SpecPath } from './pattern-kind.js';
import { specKindOf } from './pattern-kinds.js';
import { formatProblem, type SpecProblem } from './spec-problem.js';
import { checkTemplate, TemplateError } from './template.js';
import { scanTemplate } from './template-scan.js';
import { declaredInputs, templateScopes } from './template-scopes.js';
import { builtinTools, isBuiltinTool, toolId } from '../engine/tools/tool-specs.js';
import { brokenArtifactPathRule } from './artifact-path-rules.js';
import { misspeltKey } from './schema-keys.js';
import { urlWithoutCredentials } from '../secrets/url-credentials.js';
import { parsePositioned, yamlValue, type PositionedYaml } from './yaml-positions.js';
import { readYamlFile } from './yaml-file.js';
import { checkPattern } from './pattern-checks.js';
import { placeInSources, refKeys, resolveAgentRefs, type AgentRefs } from './agent-refs.js';

export interface LoadedSpec {
  spec: WorkflowSpec;
  /** The YAML text exactly as read: snapshotted into the session. */
  text: string;
  file: string;
  warnings: SpecProblem[];
}

export interface SpecCheck {
  spec?: WorkflowSpec;
  problems: SpecProblem[];
}

type Issue = z.core.$ZodIssue;

function deleteAt(root: unknown, path: readonly PropertyKey[], keys: readonly string[]): void {
  let node = root as Record<PropertyKey, unknown> | undefined;
  for (const part of path) node = node?.[part] as Record<PropertyKey, unknown> | undefined;
  if (node && typeof node === 'object') for (const key of keys) delete node[key];
}

/**
 * A copy of the spec with what the schema refused set aside, so that the rest can still be checked:
 * unknown keys dropped, an agent whose $ref could not be read standing in as the fields beside it,
 * a provider acode lacks as `openai`, any other refused value removed (when it was optional, the
 * copy then passes). Only ever checked, never run: the errors were reported already.
 */
function setAside(raw: object, unknownKeys: readonly { path: readonly PropertyKey[]; keys: readonly string[] }[], errors: readonly Issue[], unresolvedAgents: readonly string[]): unknown {
  const copy = structuredClone(raw) as Record<string, unknown>;
  for (const issue of unknownKeys) deleteAt(copy, issue.path, issue.keys);
  const agents = copy.agents as Record<string, Record<string, unknown>> | undefined;
  for (const id of unresolvedAgents) {
    const { $ref: _ref, ref: _alias, ...overrides } = agents?.[id] ?? {};
    if (agents) agents[id] = { prompt: '', ...overrides };
  }
  for (const issue of errors) {
    const path = issue.path;
    if (path.length === 2 && path[0] === 'runtime' && path[1] === 'provider') (copy.runtime as Record<string, unknown>).provider = 'openai';
    else if (path.length > 0 && !(path[0] === 'agents' && unresolvedAgents.includes(String(path[1])))) deleteAt(copy, path.slice(0, -1), [String(path.at(-1))]);
  }
  return copy;
}

/**
 * An issue's path and message. A value that fits no member of a union (a step that is neither an
 * agent step nor an approval) is explained by the member it came closest to — the one with the
 * fewest problems — beside the union's own description.
 */
function describeIssue(issue: Issue): { path: (string | number)[]; message: string } {
  const path = issue.path as (string | number)[];
  const nested = issue.code === 'invalid_union' ? issue.errors.map((option) => option.filter((i) => i.code !== 'unrecognized_keys')).filter((option) => option.length) : [];
  const closest = nested.sort((a, b) => a.length - b.length)[0]?.[0];
  if (!closest) return { path, message: `${path.length ? `${path.join('.')}: ` : ''}${issue.message}` };
  const inner = describeIssue({ ...closest, path: [...path, ...closest.path] } as Issue);
  return { path: inner.path, message: `${inner.message}${issue.message === 'Invalid input' ? '' : ` (${issue.message})`}` };
}

/** Template fields to compile, with the path of each for error positions. */
export function* templateFields(spec: WorkflowSpec): Generator<[SpecPath, string]> {
  for (const [id, agent] of Object.entries(spec.agents)) yield [['agents', id, 'prompt'], agent.prompt];
  yield* specKindOf(spec.pattern).templateFields(spec.pattern);
  for (const [i, artifact] of (spec.outputs?.artifacts ?? []).entries()) {
    yield [['outputs', 'artifacts', i, 'path'], artifact.path];
    yield [['outputs', 'artifacts', i, 'from'], artifact.from];
  }
}

/** A position and the file it is in: the spec, or an agent file a `$ref` read. */
type FilePosition = { file: string; line: number; column: number };

/** The spec's YAML, placing each path where it is written: the fields of a `$ref` agent in its own file. */
interface SourcedYaml extends PositionedYaml {
  locate(path: readonly (string | number)[]): FilePosition;
  locateKey(path: readonly (string | number)[], key: string): FilePosition;
  nodeAt(path: readonly (string | number)[]): unknown;
}

function sourcedYaml(yaml: PositionedYaml, file: string, refs: AgentRefs): SourcedYaml {
  const place = (path: readonly (string | number)[]) => placeInSources(refs, yaml, file, path);
  return {
    ...yaml,
    locate: (path) => {
      const at = place(path);
      return { file: at.file, ...at.yaml.locate(at.path) };
    },
    locateKey: (path, key) => {
      const at = place([...path, key]);
      return { file: at.file, ...at.yaml.locateKey(at.path.slice(0, -1), key) };
    },
    nodeAt: (path) => {
      const at = place(path);
      return at.yaml.doc.getIn(at.path, true);
    },
  };
}

/** Where line/column of a template map to in the YAML file: block scalars start on the next line. */
function templatePosition(yaml: SourcedYaml, path: (string | number)[], error: { line: number; column: number }): FilePosition {
  const start = yaml.locate(path);
  const node = yaml.nodeAt(path) as { type?: string } | undefined;
  const block = node?.type === 'BLOCK_LITERAL' || node?.type === 'BLOCK_FOLDED';
  if (block) return { file: start.file, line: start.line + error.line, column: error.column };
  const quoted = node?.type === 'QUOTE_DOUBLE' || node?.type === 'QUOTE_SINGLE';
  return { file: start.file, ...(error.line === 1 ? { line: start.line, column: start.column + error.column - (quoted ? 0 : 1) } : { line: start.line + error.line - 1, column: error.column }) };
}

/** `file` absent: the spec's own. */
type Report = (pos: { line: number; column: number; file?: string }, message: string) => void;

/** What the checks know about the run: the `--var` names it has; absent for `acode validate`. */
export interface CheckContext {
  variables?: readonly string[];
}

/** What semanticProblems knows beyond the parsed spec: the spec declares tool sources acode refuses (tools.mcp, skills). */
interface SemanticContext extends CheckContext {
  foreignTools?: boolean;
}

function semanticProblems(spec: WorkflowSpec, yaml: SourcedYaml, report: Report, warn: Report, context: SemanticContext): void {
  const variables = [...declaredInputs(spec), ...(context.variables ?? [])];
  // At validation the --vars are unknown: a spec that declares no inputs takes its variables from
  // --var, and strands-cli sends agent prompts as written (acode renders them), so there these
  // findings warn; `acode run`, which knows the variables, refuses them before the first step.
  const atValidation = context.variables === undefined;
  const declares = spec.inputs !== undefined;
  const at = (path: (string | number)[]) => yaml.locate(path);
  // A tool acode lacks is refused here, never dropped: an agent that silently lacks a tool its prompt relies on does the wrong work, and is paid for.
  const executors = new Set<string>();
  for (const [i, executor] of (spec.tools?.http_executors ?? []).entries()) {
    if (isBuiltinTool(executor.id) || executors.has(executor.id)) report(at(['tools', 'http_executors', i, 'id']), `HTTP executor id '${executor.id}' is taken (${isBuiltinTool(executor.id) ? 'a tool of acode\'s' : 'by an executor above'}): give it another`);
    executors.add(executor.id);
  }
  const known = [...Object.keys(builtinTools), ...executors].join(', ');
  // With MCP servers or skills declared (one error refuses them), an agent's other tool names are theirs: not named again, one by one.
  for (const [path, name, who] of context.foreignTools ? [] : declaredToolNames(spec)) {
    if (!isBuiltinTool(toolId(name)) && !executors.has(name)) report(at(path), `tool '${name}' (${who}) is not one acode has: ${known}; take it out of the spec, or give the agent one of these`);
  }
  const httpRequest = declaredToolNames(spec).find(([, name]) => toolId(name) === 'http_request');
  if (httpRequest && !spec.security?.guardrails?.allow_hosts?.length) {
    report(at(httpRequest[0] as (string | number)[]), "http_request may reach only the hosts the spec lists, and this one lists none: add security: { guardrails: { allow_hosts: [api.example.com] } } (strands-cli lets it reach any host; acode does not)");
  }
  checkPattern(spec, (path, message) => report(at(path), message), (path, message) => warn(at(path), message));
  for (const path of approvalTimeouts(spec.pattern, ['pattern'])) {
    warn(at(path), 'timeout_seconds is not acted on: acode waits for the answer as long as it takes (strands-cli records the default response once it passes); answer later with acode resume <id> --approve');
  }
  const hostShown = spec.runtime.host === undefined ? undefined : urlWithoutCredentials(spec.runtime.host);
  if (hostShown !== undefined) {
    report(at(['runtime', 'host']), `runtime.host holds a user name or password (${hostShown} with them removed); acode sends keys only from the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY): take them out`);
  }
  for (const [i, artifact] of (spec.outputs?.artifacts ?? []).entries()) {
    // A path with no template in it is the path: its rules are checked now, not when the run ends.
    const broken = /\{[{%#]/.test(artifact.path) ? undefined : brokenArtifactPathRule(artifact.path);
    if (broken) report(at(['outputs', 'artifacts', i, 'path']), broken);
  }
  for (const [path, source] of templateFields(spec)) {
    try {
      checkTemplate(source);
    } catch (error) {
      if (!(error instanceof TemplateError)) throw error;
      report(templatePosition(yaml, path as (string | number)[], error), `template ${path.map(String).join('.')}: ${error.message}`);
      continue;
    }
    const seen = new Set<string>();
    for (const scope of [undefined, ...templateScopes(spec, path, variables)]) {
      for (const finding of scanTemplate(source, scope).findings) {
        const message = `template ${path.map(String).join('.')}: ${finding.message}`;
        const key = `${finding.line}:${finding.column}:${finding.kind}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const position = templatePosition(yaml, path as (string | number)[], finding);
        // An unknown filter fails every render, whatever --var gives: validate says so as run does.
        if (!atValidation || finding.kind === 'unsafe' || finding.kind === 'filter') report(position, message);
        // Its variables may come from --var: said here, refused by a run that is not given them.
        else if (finding.kind === 'undefined' && !declares) warn(position, `${message} (acode run refuses this without it)`);
        else if (path[0] === 'agents') warn(position, `${message} (acode renders agent prompts as templates, strands-cli sends them as written; acode run refuses this)`);
        else report(position, message);
      }
    }
  }
}

/** Every tool name the spec gives: under tools.python, in an agent's tools, in an orchestrator's worker_template. */
function declaredToolNames(spec: WorkflowSpec): [SpecPath, string, string][] {
  const names: [SpecPath, string, string][] = (spec.tools?.python ?? []).map((entry, i) => [['tools', 'python', i], typeof entry === 'string' ? entry : entry.callable, 'under tools.python']);
  for (const [id, agent] of Object.entries(spec.agents)) for (const [i, name] of (agent.tools ?? []).entries()) names.push([['agents', id, 'tools', i], name, `agent '${id}'`]);
  if (spec.pattern.type === 'orchestrator_workers') {
    for (const [i, name] of (spec.pattern.config.worker_template.tools ?? []).entries()) names.push([['pattern', 'config', 'worker_template', 'tools', i], name, 'worker_template']);
  }
  return names;
}

/** strands-cli's tool sources acode does not have: each refused, all in one error, where the first one is. */
const toolSources: Record<string, string> = { 'tools.mcp': 'MCP servers', skills: 'skill folders' };

function unsupportedToolSource(path: readonly PropertyKey[], key: string): string | undefined {
  const name = [...path.map(String), key].join('.');
  return Object.hasOwn(toolSources, name) ? name : undefined;
}

/** Where an approval (hitl) step sets timeout_seconds, anywhere in the pattern. */
function approvalTimeouts(node: unknown, path: (string | number)[]): (string | number)[][] {
  if (Array.isArray(node)) return node.flatMap((item, i) => approvalTimeouts(item, [...path, i]));
  if (node === null || typeof node !== 'object') return [];
  const record = node as Record<string, unknown>;
  const own = (record.type === 'hitl' || record.type === 'approval') && record.timeout_seconds !== undefined ? [[...path, 'timeout_seconds']] : [];
  return [...own, ...Object.entries(record).flatMap(([key, value]) => approvalTimeouts(value, [...path, key]))];
}

/** Parses and validates spec text; never throws for bad input, returns every problem found. */
export function checkSpecText(text: string, file: string, context: CheckContext = {}): SpecCheck {
  const problems: SpecProblem[] = [];
  const yaml = parsePositioned(text);
  const push = (severity: SpecProblem['severity'], pos: { line: number; column: number; file?: string }, message: string) =>
    problems.push({ severity, file, ...pos, message });

  const parsed = yamlValue(yaml, file);
  if (parsed.problems) return { problems: parsed.problems };
  const raw = parsed.value;
  if (!raw || typeof raw !== 'object') {
    push('error', { line: 1, column: 1 }, 'a spec is a YAML mapping with version, name, runtime, agents and pattern');
    return { problems };
  }

  const refs = resolveAgentRefs(raw, yaml, file);
  problems.push(...refs.problems);
  const placed = sourcedYaml(yaml, file, refs);
  const unresolvedAgent = (path: readonly PropertyKey[]) => path[0] === 'agents' && refs.unresolved.includes(String(path[1]));
  const patternType = (raw as { pattern?: { type?: unknown } }).pattern?.type;
  const unsupportedPattern = typeof patternType === 'string' && !(supportedPatternTypes as string[]).includes(patternType) && knownPatternTypes.includes(patternType);
  if (unsupportedPattern) {
    push('error', yaml.locate(['pattern', 'type']), `pattern type '${patternType}' is not supported by acode yet; supported: ${supportedPatternTypes.join(', ')}`);
  }

  let result = specSchema.safeParse(raw);
  if (!result.success) {
    const unknownKeys = result.error.issues.filter((issue) => issue.code === 'unrecognized_keys');
    const errors = result.error.issues.filter((issue) => issue.code !== 'unrecognized_keys' && !(unsupportedPattern && issue.path[0] === 'pattern') && !unresolvedAgent(issue.path));
    const sources = unknownKeys.flatMap((issue) => issue.keys.flatMap((key) => (unsupportedToolSource(issue.path, key) ? [{ path: issue.path as (string | number)[], key }] : [])));
    if (sources.length) {
      const named = sources.map((s) => unsupportedToolSource(s.path, s.key)!);
      push(
        'error',
        yaml.locateKey(sources[0]!.path, sources[0]!.key),
        `${named.map((n) => `${n} (${toolSources[n]})`).join(' and ')} ${named.length === 1 ? 'is' : 'are'} not supported by acode: its agents would run without the tools ${named.length === 1 ? 'it gives' : 'they give'}. acode's tools are ${Object.keys(builtinTools).join(', ')}; take ${named.join(' and ')} out of the spec to run with those`,
      );
    }
    for (const issue of unknownKeys) {
      for (const key of issue.keys) {
        // An agent's $ref that could not be read is an error already: it is not also "ignored".
        if (issue.path[0] === 'agents' && issue.path.length === 2 && unresolvedAgent(issue.path) && (refKeys as readonly string[]).includes(key)) continue;
        if (unsupportedToolSource(issue.path, key)) continue;
        const where = [...issue.path.map(String), key].join('.');
        const ref = issue.path[0] === 'agents' ? refs.resolved.get(String(issue.path[1]))?.ref : undefined;
        const meant = misspeltKey(issue.path, key);
        if (meant !== undefined) push('error', placed.locateKey(issue.path as (string | number)[], key), `'${where}'${ref ? ` (from ${ref})` : ''} is not a key acode or strands-cli has here — did you mean '${meant}'?`);
        else push('warning', placed.locateKey(issue.path as (string | number)[], key), `'${where}'${ref ? ` (from ${ref})` : ''} is not supported by acode yet and is ignored`);
      }
    }
    for (const issue of errors) {
      const { path, message } = describeIssue(issue);
      push('error', placed.locate(path), message);
    }
    if (!unsupportedPattern) result = specSchema.safeParse(setAside(raw, unknownKeys, errors, refs.unresolved));
  }
  // Every problem at once: the checks below run on what the schema accepted, beside its errors
  // (a spec had taken three rounds of fixes, each finding what the last one hid).
  if (!result.success || unsupportedPattern) return { problems };

  semanticProblems(result.data, placed, (pos, message) => push('error', pos, message), (pos, message) => push('warning', pos, message), { ...context, foreignTools: Object.keys(toolSources).some((name) => { const [head, tail] = name.split('.'); const value = (raw as Record<string, unknown>)[head!]; return tail === undefined ? value !== undefined : value !== null && typeof value === 'object' && (value as Record<string, unknown>)[tail] !== undefined; }) });
  return problems.some((p) => p.severity === 'error') ? { problems } : { spec: result.data, problems };
}

/**
 * A spec file's text; one that cannot be read, is not a regular file, is past 4 MiB or is not
 * UTF-8 text is an AcodeError (exit 2) saying why in words (see yaml-file.ts).
 */
export function readSpecText(file: string): string {
  const read = readYamlFile(file, 'spec file');
  if ('reason' in read) throw new AcodeError(`cannot read spec ${file}: ${read.reason}`, ExitCode.usage);
  return read.text;
}

/** Reads and validates a spec file; a bad spec is an AcodeError (exit 2) listing every problem. */
export function loadSpecFile(file: string, context: CheckContext = {}): LoadedSpec {
  return loadSpecText(readSpecText(file), file, context);
}

export function loadSpecText(text: string, file: string, context: CheckContext = {}): LoadedSpec {
  const { spec, problems } = checkSpecText(text, file, context);
  if (!spec) {
    const errors = problems.filter((p) => p.severity === 'error');
    throw new AcodeError(
      `${file}: ${errors.length} problem${errors.length === 1 ? '' : 's'} in the spec:\n${problems.map(formatProblem).join('\n')}\nFix them and run 'acode validate ${file}' to check.`,
      ExitCode.usage,
    );
  }
  return { spec, text, file, warnings: problems };
}
