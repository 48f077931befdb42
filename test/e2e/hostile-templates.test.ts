import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { parseAllSessionFiles } from '../helpers/session-files.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A one-step chain whose step input, or artifact `from`, is the given template. */
function spec(field: 'input' | 'from', template: string): string {
  return `version: 0
name: hostile
runtime: { provider: scripted }
inputs:
  values: { topic: durability, n: 1000000000 }
agents:
  writer:
    prompt: "You write."
pattern:
  type: chain
  config:
    steps:
      - agent: writer
        input: ${JSON.stringify(field === 'input' ? template : 'Write about {{ topic }}')}
outputs:
  artifacts:
    - path: report.md
      from: ${JSON.stringify(field === 'from' ? template : '{{ last_response }}')}
`;
}

function workspace(text: string) {
  const cwd = tempDir();
  const home = join(tempDir(), 'home');
  writeFileSync(join(cwd, 'spec.yaml'), text);
  // A crash past a limit would take gigabytes first: the cap makes it a quick, visible failure.
  return { cwd, home, env: { ACODE_HOME: home, NODE_OPTIONS: '--max-old-space-size=300' } };
}

describe('a template past its limits', () => {
  it('is refused by validate when a literal argument is past a limit, naming the line and the limit', async () => {
    for (const [template, limit] of [
      ['{% for i in range(1000000000) %}x{% endfor %}', /range\(1000000000\) would make 1,000,000,000 items, past the limit of 1,000,000/],
      ['{{ topic | center(2000000000) }}', /center\(2000000000\) would make 2,000,000,000 characters, past the limit of 64 Mi/],
      ['{{ topic | indent(2000000000) }}', /indent\(2000000000\) would make 2,000,000,000 characters/],
    ] as const) {
      const ws = workspace(spec('input', template));
      const checked = await runCli(['validate', 'spec.yaml'], ws);
      expect(checked.code, checked.stderr).toBe(2);
      expect(checked.stderr).toMatch(/^spec\.yaml:14:\d+: error: template pattern\.config\.steps\.0\.input: /m);
      expect(checked.stderr).toMatch(limit);
    }
  });

  it('fails the step cleanly at run, naming the template and the limit: no crash, no interrupted session', async () => {
    const ws = workspace(spec('input', '{% for i in range(n) %}x{% endfor %}'));
    const ran = await runCli(['run', 'spec.yaml'], ws);
    expect(ran.code, ran.stderr).toBe(1);
    expect(ran.stderr).toMatch(/failed: step 1 \(writer\): template input, line 1: range\(1000000000\) would make 1,000,000,000 items, past the limit of 1,000,000/);
    expect(ran.stderr).not.toMatch(/\n\s+at |heap/);
    expect(parseAllSessionFiles(ws.home).map((record) => record.checkpoint.status)).toEqual(['failed']);
  });

  it('fails an artifact whose macro calls itself, saying so rather than naming undefined variables', async () => {
    const ws = workspace(spec('from', '{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}'));
    const ran = await runCli(['run', 'spec.yaml'], ws);
    expect(ran.code, ran.stderr).toBe(1);
    expect(ran.stderr).toMatch(/artifact: template outputs\.artifacts\.0\.from, line 1: macro 'm' called macros 100 deep/);
    expect(ran.stderr).not.toMatch(/undefined variable/);
    expect(parseAllSessionFiles(ws.home).map((record) => record.checkpoint.status)).toEqual(['failed']);
  });
});
