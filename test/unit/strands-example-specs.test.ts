import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { checkSpecText } from '../../source/spec/load-spec.js';
import type { WorkflowSpec } from '../../source/spec/schema.js';
import { formatProblem } from '../../source/spec/spec-problem.js';
import { exampleNeeds } from '../helpers/example-needs.js';

/**
 * strands-cli's 88 example specs (test/fixtures/strands-examples, a copy of ../shared/strands-examples,
 * with the two atomic agents two of them `$ref` in test/fixtures/agents), read unchanged.
 */
const dir = 'test/fixtures/strands-examples';
const files = readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort();
const examples = files.map((file) => {
  const text = readFileSync(join(dir, file), 'utf8');
  const pattern = String((parse(text) as { pattern?: { type?: unknown } }).pattern?.type);
  // The real path: a `$ref` resolves relative to the spec.
  return { file, pattern, check: checkSpecText(text, join(dir, file)) };
});

/** The chain examples acode accepted before workflow and parallel were added (template-safety.test.ts). */
const chainBefore = [
  'chain-3-step-research-openai.yaml', 'chain-3-step-research.yaml', 'chain-3-step-resume-demo.yaml', 'chain-calculator-openai.yaml',
  'chain-hitl-approval-demo.yaml', 'chain-hitl-business-proposal-openai.yaml', 'context-notes-demo-openai.yaml', 'github-api-example-openai.yaml',
  'inference-overrides-openai.yaml', 'jit-codebase-analysis-openai.yaml', 'jit-config-audit-openai.yaml', 'jit-log-analysis-openai.yaml',
  'jit-tools-test-openai.yaml', 'mcp-filesystem-openai.yaml', 'mcp-multi-server-openai.yaml', 'mcp-simple-openai.yaml',
  'mermaid-diagram-generator-anthropic.yaml', 'multi-agent-unsupported.yaml', 'multi-step-unsupported.yaml', 'presets-balanced-openai.yaml',
  'presets-interactive-chat-openai.yaml', 'presets-long-run-research-openai.yaml', 'presets-minimal-openai.yaml', 'python-exec-demo-openai.yaml',
  'research-workflow-notes-openai.yaml', 'simple-file-read-openai.yaml', 'single-agent-chain-anthropic.yaml', 'single-agent-chain-ollama.yaml',
  'single-agent-chain-openai.yaml', 'spec-generator-agent.yaml', 'spec-verification-workflow-openai.yaml', 'test-notes-openai.yaml',
  'test-notes-simple-openai.yaml', 'weather-api-metadata-example.yaml',
];

/**
 * Examples that declare a tool acode lacks, or a tool source it does not have (MCP, skills), or
 * http_request with no host allowed: refused at validation, one clear error each, where
 * acode once warned and ran their agents without the tool.
 */
const toolRefused: Record<string, RegExp> = {
  'duckduckgo-search-demo.yaml': /tool 'duckduckgo_search' \(under tools.python\) is not one acode has/,
  'mcp-filesystem-openai.yaml': /^tools.mcp \(MCP servers\) is not supported by acode/,
  'mcp-multi-server-openai.yaml': /^tools.mcp \(MCP servers\) is not supported by acode/,
  'mcp-simple-openai.yaml': /^tools.mcp \(MCP servers\) is not supported by acode/,
  'mermaid-diagram-generator-anthropic.yaml': /^skills \(skill folders\) is not supported by acode/,
  'mermaid-diagram-generator.yaml': /^skills \(skill folders\) is not supported by acode/,
  'orchestrator-research-swarm-openai.yaml': /tool 'http_executors' \(agent 'researcher'\) is not one acode has/,
  'research-workflow-notes-openai.yaml': /^http_request may reach only the hosts the spec lists, and this one lists none/,
  'routing-multi-tool-openai.yaml': /^http_request may reach only the hosts the spec lists, and this one lists none/,
  'skills-demo.yaml': /^skills \(skill folders\) is not supported by acode/,
  'spec-generator-agent.yaml': /tool 'spec_verify' \(under tools.python\) is not one acode has/,
  'spec-verification-workflow-openai.yaml': /tool 'spec_verify' \(under tools.python\) is not one acode has/,
  'strands-spec-builder-demo.yaml': /^skills \(skill folders\) is not supported by acode/,
  'tavily-deep-research-demo.yaml': /tool 'tavily_search' \(under tools.python\) is not one acode has/,
  'tavily-search-demo.yaml': /tool 'tavily_search' \(under tools.python\) is not one acode has/,
};

/** Chain examples accepted now: `version: 1` / `1.0.0` is read as strands-cli reads it, and `$ref` agents resolve; none that toolRefused lists. */
const chainNow = [
  ...chainBefore,
  'atomic-ref-demo-openai.yaml', 'chain-interactive-prompts-openai.yaml', 'compaction-auto-reduce-test.yaml', 'compaction-test-ollama.yaml',
  'debug-demo-openai.yaml', 'duckduckgo-search-demo.yaml', 'skills-demo.yaml', 'strands-spec-builder-demo.yaml', 'tavily-deep-research-demo.yaml',
  'tavily-search-demo.yaml', 'telemetry-redaction-demo-openai.yaml', 'telemetry-simple-openai.yaml',
  // gemini through its OpenAI-compatible endpoint.
  'mermaid-diagram-generator.yaml', 'single-agent-chain-gemini.yaml',
]
  .filter((file) => !toolRefused[file])
  .sort();

/** Chain examples refused, each for a reason strands-cli's own run would meet or acode does not offer. */
const chainRefused: Record<string, RegExp> = {
  // Its artifact reads name, runtime and context_policy: no render context has them, strands-cli's neither.
  'compaction-test-openai.yaml': /undefined variable 'name'/,
  'single-agent-chain-bedrock.yaml': /provider bedrock is not supported by acode: point the spec at an OpenAI-compatible gateway/,
};

/** Examples of the patterns that decide at run time that are refused: one clear reason each, as strands-cli's own run would meet. */
const decidingRefused: Record<string, RegExp> = {
  'evaluator-optimizer-code-review-bedrock.yaml': /provider bedrock is not supported by acode/,
  // `{{ fix %}`: a template that does not close; Jinja refuses it too.
  'evaluator-optimizer-writing-ollama.yaml': /revise_prompt: expected variable end/,
  // `when: "nodes.analyze.response contains 'high'"`: Jinja has no `contains` operator (strands-cli fails there at run time).
  'graph-resume-demo-openai.yaml': /a condition has no operator 'contains' \(Jinja's is 'in'\)/,
};

const accepted = (pattern: string) => examples.filter((e) => e.pattern === pattern && e.check.spec).map((e) => e.file);
const refused = (pattern: string) => examples.filter((e) => e.pattern === pattern && !e.check.spec).map((e) => e.file);

const needs = (spec: WorkflowSpec) => {
  const { steps: _steps, ...rest } = exampleNeeds(spec);
  return rest;
};

describe("strands-cli's example specs, read unchanged", () => {
  it('counts accepted and refused per pattern', () => {
    const patterns = [...new Set(examples.map((e) => e.pattern))].sort();
    const rows = patterns.map((p) => `  ${p.padEnd(22)} ${String(accepted(p).length).padStart(3)} accepted ${String(refused(p).length).padStart(3)} refused`);
    console.log(`${examples.length} strands-cli examples:\n${rows.join('\n')}`);
    expect(examples).toHaveLength(88);
    expect(Object.fromEntries(patterns.map((p) => [p, [accepted(p).length, refused(p).length]]))).toEqual({
      chain: [35, 15],
      workflow: [10, 0],
      parallel: [6, 0],
      routing: [5, 1],
      evaluator_optimizer: [4, 2],
      orchestrator_workers: [4, 1],
      graph: [4, 1],
    });
  });

  it('accepts every workflow and parallel example', () => {
    for (const example of examples.filter((e) => e.pattern === 'workflow' || e.pattern === 'parallel')) {
      expect(example.check.problems.filter((p) => p.severity === 'error').map(formatProblem), example.file).toEqual([]);
      expect(example.check.spec?.pattern.type, example.file).toBe(example.pattern);
    }
  });

  it('accepts every chain example it accepted before, and the ones that say version 1, but those that declare a tool acode lacks', () => {
    expect(accepted('chain')).toEqual(chainNow);
    expect(chainNow).toEqual(expect.arrayContaining(chainBefore.filter((file) => !toolRefused[file])));
    for (const [file, reason] of Object.entries(chainRefused)) {
      const errors = examples.find((e) => e.file === file)!.check.problems.filter((p) => p.severity === 'error');
      expect(errors.map((p) => p.message).join('\n'), file).toMatch(reason);
    }
  });

  it('refuses each example that declares a tool acode lacks with one error naming it, at its line', () => {
    for (const [file, reason] of Object.entries(toolRefused)) {
      const errors = examples.find((e) => e.file === file)!.check.problems.filter((p) => p.severity === 'error');
      expect(errors[0]?.message, file).toMatch(reason);
      expect(errors[0]?.line, file).toBeGreaterThan(1);
      // One error per tool named, never one per agent that names a tool source's tools as well.
      expect(errors.length, file).toBeLessThanOrEqual(2);
    }
  });

  it('accepts every routing, evaluator_optimizer, orchestrator_workers and graph example but five, each refused for one clear reason', () => {
    for (const example of examples.filter((e) => !['chain', 'workflow', 'parallel'].includes(e.pattern))) {
      const errors = example.check.problems.filter((p) => p.severity === 'error').map((p) => p.message);
      const reason = decidingRefused[example.file] ?? toolRefused[example.file];
      if (reason) expect(errors.join('\n'), example.file).toMatch(reason);
      else expect(errors, example.file).toEqual([]);
    }
  });

  it('lists what each workflow and parallel example needs to run: --vars, approvals, tools, providers', () => {
    const table = Object.fromEntries(examples.filter((e) => e.check.spec && (e.pattern === 'workflow' || e.pattern === 'parallel')).map((e) => [e.file, needs(e.check.spec!)]));
    console.log(Object.entries(table).map(([file, n]) => `  ${file}: ${n.providers.join('+')}${n.vars.length ? `, --var ${n.vars.join(' ')}` : ''}${n.approvals ? `, ${n.approvals} approval${n.approvals === 1 ? '' : 's'}` : ''}${n.tools.length ? `, tools ${n.tools.join(' ')}` : ''}`).join('\n'));
    expect(table).toEqual({
      'customer-support-intake-composite-openai.yaml': { providers: ['openai'], vars: ['body', 'subject'], approvals: 0, tools: [] },
      'parallel-hitl-branch-demo.yaml': { providers: ['openai'], vars: ['topic'], approvals: 1, tools: [] },
      'parallel-hitl-reduce-demo.yaml': { providers: ['openai'], vars: ['source_a_data', 'source_b_data'], approvals: 1, tools: [] },
      'parallel-multi-step-branches.yaml': { providers: ['openai'], vars: [], approvals: 0, tools: [] },
      'parallel-resume-demo-openai.yaml': { providers: ['openai'], vars: [], approvals: 0, tools: [] },
      'parallel-simple-2-branches.yaml': { providers: ['openai'], vars: [], approvals: 0, tools: [] },
      'parallel-with-reduce.yaml': { providers: ['openai'], vars: [], approvals: 0, tools: [] },
      'single-agent-workflow-ollama.yaml': { providers: ['ollama'], vars: [], approvals: 0, tools: [] },
      'single-agent-workflow-openai.yaml': { providers: ['openai'], vars: [], approvals: 0, tools: [] },
      'telemetry-workflow-openai.yaml': { providers: ['openai'], vars: [], approvals: 0, tools: [] },
      'workflow-file-operations-openai.yaml': { providers: ['openai'], vars: ['source_file'], approvals: 0, tools: ['file_read', 'file_write'] },
      'workflow-hitl-approval-demo.yaml': { providers: ['openai'], vars: ['topic'], approvals: 2, tools: [] },
      'workflow-linear-dag-openai.yaml': { providers: ['openai'], vars: [], approvals: 0, tools: [] },
      'workflow-linear-dag.yaml': { providers: ['ollama'], vars: [], approvals: 0, tools: [] },
      'workflow-parallel-research-openai.yaml': { providers: ['openai'], vars: [], approvals: 0, tools: [] },
      'workflow-parallel-research.yaml': { providers: ['ollama'], vars: [], approvals: 0, tools: [] },
    });
  });
});
