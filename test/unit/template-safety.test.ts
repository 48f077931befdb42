import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkSpecText } from '../../source/spec/load-spec.js';
import { formatProblem } from '../../source/spec/spec-problem.js';
import { renderTemplate, TemplateError } from '../../source/spec/template.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A spec with one agent prompt, one step input and one artifact `from`, each replaceable. */
function spec(parts: { prompt?: string; input?: string; from?: string; inputs?: string } = {}): string {
  return [
    'version: 0',
    'name: safety',
    'runtime:',
    '  provider: scripted',
    'inputs:',
    parts.inputs ?? '  values:\n    topic: durability',
    'agents:',
    '  writer:',
    `    prompt: ${JSON.stringify(parts.prompt ?? 'You write.')}`,
    'pattern:',
    '  type: chain',
    '  config:',
    '    steps:',
    '      - agent: writer',
    `        input: ${JSON.stringify(parts.input ?? 'Write about {{ topic }}')}`,
    '      - agent: writer',
    '        input: "Improve: {{ steps[0].response }}"',
    'outputs:',
    '  artifacts:',
    '    - path: report.md',
    `      from: ${JSON.stringify(parts.from ?? '{{ last_response }}')}`,
    '',
  ].join('\n');
}

function errors(text: string, variables?: string[]): string[] {
  return checkSpecText(text, 'spec.yaml', variables ? { variables } : {})
    .problems.filter((p) => p.severity === 'error')
    .map(formatProblem);
}

const touch = (marker: string) => `process.getBuiltinModule(\\"child_process\\").execSync(\\"touch ${marker}\\")`;

/** Every way in that the defect report and the brief name, as template text writing `marker`. */
function attacks(marker: string): Record<string, string> {
  const code = `'return ${touch(marker).replaceAll('\\"', '"')}'`;
  return {
    'joiner.constructor': `{{ joiner.constructor(${code})() }}`,
    'range.constructor': `{{ range.constructor(${code})() }}`,
    'cycler.constructor': `{{ cycler.constructor(${code})() }}`,
    '__proto__': `{{ joiner.__proto__.constructor(${code})() }}`,
    prototype: `{{ joiner.prototype }}`,
    "['constructor'] subscript": `{{ joiner['constructor'](${code})() }}`,
    'via a variable': `{% set f = joiner %}{{ f.constructor(${code})() }}`,
    'via a variable key': `{% set k = 'construc' ~ 'tor' %}{% set f = joiner[k] %}{% set g = f(${code}) %}{{ g() }}`,
    'inside {% set %}': `{% set g = joiner.constructor(${code}) %}{{ g() }}`,
    'a key built by ~': `{{ range['const' ~ 'ructor'](${code})() }}`,
    'a key built by a filter': `{{ range['CONSTRUCTOR' | lower](${code})() }}`,
    'a data value called': `{{ steps[0].response.constructor }}{{ topic() }}`,
  };
}

describe('template sandbox: validation refuses code', () => {
  for (const [name, template] of Object.entries(attacks('/nonexistent/never'))) {
    for (const field of ['prompt', 'input', 'from'] as const) {
      it(`refuses ${name} in ${field === 'prompt' ? 'an agent prompt' : field === 'input' ? 'a step input' : "an artifact's from"} with its line`, () => {
        const found = errors(spec({ [field]: template }));
        const line = field === 'prompt' ? 10 : field === 'input' ? 16 : 22;
        expect(found.length, found.join('\n')).toBeGreaterThan(0);
        expect(found[0]).toMatch(new RegExp(`^spec\\.yaml:${line}:\\d+: error: template .*cannot be`));
      });
    }
  }
});

describe('template sandbox: rendering refuses code the static walk never sees', () => {
  it('hands no filter a function or a forbidden attribute name', () => {
    const context = { topic: 't', steps: [{ response: 'constructor' }], last_response: 'constructor' };
    expect(() => renderTemplate("{{ [range] | sum('constructor') }}", context)).toThrow(/'constructor' cannot be read/);
    expect(() => renderTemplate('{{ [1, 2] | groupby(joiner) }}', context)).toThrow(/cannot be given a function/);
    expect(() => renderTemplate('{{ range | string }}', context)).toThrow(/cannot be given a function/);
    // Data that merely reads like a forbidden name is still data.
    expect(renderTemplate('{{ last_response | upper }} {{ steps | join(",", "response") }}', context)).toBe('CONSTRUCTOR constructor');
  });

  for (const [name, template] of Object.entries(attacks('MARKER'))) {
    it(`refuses ${name} at render time and runs nothing`, () => {
      const dir = tempDir();
      const marker = join(dir, 'pwned');
      const source = template.replaceAll('MARKER', marker);
      const context = { topic: 't', steps: [{ response: 'r' }], last_response: 'r' };
      expect(() => renderTemplate(source, context)).toThrow(TemplateError);
      expect(existsSync(marker)).toBe(false);
    });
  }

  it('refuses a key that becomes constructor only when JavaScript converts it', () => {
    expect(() => renderTemplate("{{ joiner[['constructor']]('return 1')() }}", {})).toThrow(/'constructor' cannot be read/);
  });

  it('refuses calling a function handed in as data', () => {
    expect(() => renderTemplate('{{ f() }}', { f: () => 'ran' })).toThrow(/'f' cannot be called/);
  });

  it('keeps what strands specs use: filters, loops, joiner, cycler, range, macros', () => {
    const source = [
      "{% set comma = joiner(', ') %}{% for s in steps %}{{ comma() }}{{ s.response | upper | truncate(5) }}{% endfor %}",
      "|{% set c = cycler('a', 'b') %}{{ c.next() }}{{ c.next() }}",
      '|{% for i in range(3) %}{{ i }}{% endfor %}',
      "|{% macro m(x, y='!') %}{{ x }}{{ y }}{% endmacro %}{{ m('hi') }}",
      "|{{ topic | replace(' ', '-') | title }}{{ missing | default('d') }}{{ steps | tojson | length > 2 }}",
    ].join('');
    expect(renderTemplate(source, { topic: 'ai agents', steps: [{ response: 'one long' }, { response: 'two' }] })).toBe('ON..., TWO|ab|012|hi!|Ai-agentsdtrue');
  });
});

describe('static checks: names and steps that would fail at run time', () => {
  it('refuses a misspelt variable at validation, naming the closest input', () => {
    expect(errors(spec({ input: 'Write about {{ topc }}' }))).toEqual([
      "spec.yaml:16:32: error: template pattern.config.steps.0.input: undefined variable 'topc' (did you mean 'topic'?); declare it under inputs (required, optional or values) or pass --var topc=…",
    ]);
  });

  it('accepts names from inputs.required and inputs.optional, step vars, set and loop names', () => {
    const inputs = '  required:\n    topic: string\n  optional:\n    tone: { type: string, default: calm }';
    const input = '{% set n = 1 %}{% for s in steps %}{{ loop.index }}{{ s }}{% endfor %}{{ topic }} {{ tone }} {{ n }}{% if extra is defined %}{{ extra }}{% endif %}';
    expect(errors(spec({ inputs, input }))).toEqual([]);
  });

  it('refuses at run a name that neither inputs nor the --vars give', () => {
    const text = spec({ inputs: '  values: {}', input: 'Write about {{ subject }}' });
    expect(errors(text, ['topic'])).toEqual([expect.stringMatching(/^spec\.yaml:15:\d+: error: .*undefined variable 'subject'/)]);
    expect(errors(text, ['subject'])).toEqual([]);
  });

  it('refuses steps[n] for a step that has not run: beyond the chain, itself, a later step', () => {
    expect(errors(spec({ from: '{{ steps[5].response }}' }))).toEqual([expect.stringMatching(/^spec\.yaml:22:\d+: error: .*steps\[5\] does not exist here: artifacts render after the chain's 2 steps/)]);
    expect(errors(spec({ input: '{{ steps[0].response }}' }))).toEqual([expect.stringMatching(/^spec\.yaml:16:\d+: error: .*steps\[0\] does not exist here: pattern\.config\.steps\[0\] is the first step/)]);
    expect(errors(spec({ input: '{{ steps[1].response | truncate(9) }}' }))).toEqual([expect.stringMatching(/^spec\.yaml:16:\d+: error: .*steps\[1\] does not exist here/)]);
  });

  it('refuses an unknown filter', () => {
    expect(errors(spec({ input: '{{ topic | shout }}' }))).toEqual([expect.stringMatching(/error: .*unknown filter 'shout'/)]);
  });
});

describe('YAML errors are placed', () => {
  it('reports a syntax error at the line and column the parser gives', () => {
    expect(errors('version: 0\nname: demo\nruntime:\n  provider: [scripted\nagents: {}\n')).toEqual([expect.stringMatching(/^spec\.yaml:5:1: error: YAML: /)]);
  });

  it('reports an undefined alias where it is', () => {
    expect(errors('version: 0\nname: *nothing\n')).toEqual(['spec.yaml:2:7: error: YAML: alias *nothing refers to no anchor &nothing defined before it; define the anchor first or remove the alias']);
  });

  it('reports an alias bomb at the alias that multiplies, without expanding it', () => {
    const lines = ['version: 0', 'a: &a [x, x, x, x, x, x, x, x, x]'];
    const names = 'abcdefghi';
    for (let i = 1; i < names.length; i++) lines.push(`${names[i]}: &${names[i]} [${Array(9).fill(`*${names[i - 1]}`).join(', ')}]`);
    lines.push('name: *i');
    expect(errors(lines.join('\n'))).toEqual([expect.stringMatching(/^spec\.yaml:4:\d+: error: YAML: aliases expand into too many nodes .*\*b/)]);
  });
});

describe("strands-cli's example specs", () => {
  const dir = 'test/fixtures/strands-examples';
  // The specs acode accepted before the template checks: they must all still pass.
  const accepted = [
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

  // Its artifact reads name, runtime and context_policy, which no render context has (strands-cli's
  // neither): refused for its templates since `version: 1` is accepted.
  // A revise_prompt with `{{ fix %}`, which does not close (Jinja refuses it too).
  const readsSpecFields = ['compaction-test-openai.yaml', 'evaluator-optimizer-writing-ollama.yaml'];

  it('validates every spec acode accepted before, and rejects the others for none of the new reasons', () => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort();
    expect(files).toHaveLength(88);
    const valid: string[] = [];
    // Refused since a tool acode lacks is an error: for that alone, never for a template.
    const forTools: string[] = [];
    const aboutTools = /tool '|not supported by acode: its agents would run without|http_request may reach only/;
    for (const file of files) {
      const check = checkSpecText(readFileSync(join(dir, file), 'utf8'), file);
      const errors = check.problems.filter((p) => p.severity === 'error');
      if (check.spec) valid.push(file);
      else if (errors.every((p) => aboutTools.test(p.message))) forTools.push(file);
      else if (!readsSpecFields.includes(file)) expect(errors.filter((p) => /template|YAML/.test(p.message)).map(formatProblem), file).toEqual([]);
    }
    // The exact lists per pattern are strands-example-specs.test.ts's: here, none of these is lost to a template check.
    expect([...valid, ...forTools]).toEqual(expect.arrayContaining(accepted));
  });
});
