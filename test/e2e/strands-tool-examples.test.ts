import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readEventLog } from '../../source/store/event-log.js';
import { runCli } from '../helpers/cli.js';
import { OpenAiTestServer } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * strands-cli's examples that declare calculator and python_exec, run unchanged against a loopback
 * OpenAI server that calls the tool as a model would, then answers with what the tool said.
 */
const server = new OpenAiTestServer();
afterEach(() => server.stop());

function answering(call: { name: string; args: Record<string, unknown> }): OpenAiTestServer['handler'] {
  return (request) => {
    const last = request.body.messages.at(-1) as { role: string; content: string } | undefined;
    if (last?.role === 'tool') return { kind: 'answer', text: `The tool says: ${last.content}` };
    return { kind: 'tool_calls', calls: [{ id: `call_${request.body.messages.length}`, ...call }] };
  };
}

async function runExample(file: string, vars: string[]) {
  const cwd = tempDir();
  mkdirSync(join(cwd, 'examples'));
  cpSync(join('test/fixtures/strands-examples', file), join(cwd, 'examples', file));
  const baseUrl = await server.start();
  const ws = { cwd, env: { ACODE_HOME: join(cwd, '.home'), OPENAI_API_KEY: 'sk-test-not-used', OPENAI_BASE_URL: baseUrl } };
  const result = await runCli(['run', `examples/${file}`, '--json', ...vars.flatMap((v) => ['--var', v])], ws);
  expect(result.code, result.stderr).toBe(0);
  const summary = JSON.parse(result.stdout) as { session_id: string; status: string; artifacts: string[] };
  const events = readEventLog(join(cwd, '.home', 'sessions', summary.session_id, 'events.jsonl'));
  return { summary, results: events.flatMap((e) => (e.type === 'tool_result' ? [{ name: e.name, ok: e.ok, output: e.output }] : [])) };
}

describe("strands-cli's tool examples, run unchanged offline", () => {
  it('chain-calculator-openai: each step calls calculator and answers with its result', async () => {
    server.handler = answering({ name: 'calculator', args: { expression: '3^3 + 2*3^2 - 5*3 + 7' } });
    const { summary, results } = await runExample('chain-calculator-openai.yaml', ['problem=Evaluate x^3 + 2x^2 - 5x + 7 at x = 3']);
    expect(summary.status).toBe('completed');
    expect(results).toEqual([
      { name: 'calculator', ok: true, output: '3^3 + 2*3^2 - 5*3 + 7 = 37' },
      { name: 'calculator', ok: true, output: '3^3 + 2*3^2 - 5*3 + 7 = 37' },
    ]);
    expect(readFileSync(summary.artifacts[0]!, 'utf8')).toContain('The tool says: 3^3 + 2*3^2 - 5*3 + 7 = 37');
  });

  it('python-exec-demo-openai: the step runs python3 and answers with what it printed', async () => {
    server.handler = answering({ name: 'python_exec', args: { code: 'import math\nprint(math.factorial(15))' } });
    const { summary, results } = await runExample('python-exec-demo-openai.yaml', []);
    expect(summary.status).toBe('completed');
    expect(results).toEqual([{ name: 'python_exec', ok: true, output: '1307674368000\n' }]);
    expect(readFileSync(summary.artifacts[0]!, 'utf8')).toContain('1307674368000');
  });
});
