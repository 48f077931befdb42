import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A graph whose review never approves: write and review take turns until a limit stops them. */
const loop = (maxIterations: number, budgets = '') => `version: 0
name: endless-review
runtime:
  provider: scripted
${budgets}  scripted:
    responses:
      coder: "draft {{ nodes.write.iteration + 1 }}"
      reviewer: "needs work"
      closer: "closed"
agents:
  coder: { prompt: "Code" }
  reviewer: { prompt: "Review" }
  closer: { prompt: "Close" }
pattern:
  type: graph
  config:
    max_iterations: ${maxIterations}
    nodes:
      write: { agent: coder, input: "write" }
      review: { agent: reviewer, input: "review {{ nodes.write.response }}" }
      close: { agent: closer, input: "close" }
    edges:
      - { from: write, to: review }
      - from: review
        choose:
          - { when: "{{ nodes.write.iteration >= 3 }}", to: close }
          - { when: else, to: write }
outputs:
  artifacts:
    - { path: out.md, from: "{{ execution_path | join(' ') }}" }
`;

function workspace(spec: string) {
  const cwd = tempDir();
  writeFileSync(join(cwd, 'spec.yaml'), spec);
  return { cwd, env: { ACODE_HOME: join(cwd, 'home') } };
}

describe('a limit the session stops at, raised on resume', () => {
  it('pauses a graph at max_iterations, names the flag that raises it, and goes on with it raised, running nothing twice', async () => {
    const ws = workspace(loop(2));
    const run = await runCli(['run', 'spec.yaml', '--json'], ws);
    expect(run.code, run.stderr).toBe(1);
    const paused = JSON.parse(run.stdout) as { session_id: string; status: string };
    expect(paused.status).toBe('paused');
    expect(run.stderr).toContain(`node 'write' would run a 3rd time, past pattern.config.max_iterations 2: raise it (acode resume --set pattern.config.max_iterations=4`);

    const wrong = await runCli(['resume', paused.session_id, '--set', 'pattern.config.max_iterations=lots'], ws);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('give pattern.config.max_iterations a whole number above 0');

    const resumed = await runCli(['resume', paused.session_id, '--json', '--set', 'pattern.config.max_iterations=3'], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'completed', steps_skipped: 4, steps_executed: 3 });
    expect(resumed.stderr).toContain('raised pattern.config.max_iterations 2 → 3');
    const show = await runCli(['sessions', 'show', paused.session_id, '--json'], ws);
    expect(show.code, show.stderr).toBe(0);
  });

  it('pauses at runtime.budgets.max_steps, warning once before, and raising it lets the run finish', async () => {
    const ws = workspace(loop(5, '  budgets: { max_steps: 4, warn_threshold: 0.5 }\n'));
    const run = await runCli(['run', 'spec.yaml', '--json'], ws);
    expect(run.code, run.stderr).toBe(1);
    const { session_id: id } = JSON.parse(run.stdout) as { session_id: string };
    expect(run.stderr.match(/warning: \d+ steps completed of runtime\.budgets\.max_steps 4/g)).toHaveLength(1);
    expect(run.stderr).toContain(`budget reached: 4 steps completed of runtime.budgets.max_steps 4; to go on, raise it: acode resume ${id} --set runtime.budgets.max_steps=8`);
    const resumed = await runCli(['resume', id, '--json', '--set', 'runtime.budgets.max_steps=8'], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'completed', steps_skipped: 4, steps_executed: 3 });
    expect(resumed.stderr).not.toContain('warning:');
  });
});
