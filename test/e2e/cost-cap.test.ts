import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chainSpec } from '../helpers/chain-spec.js';
import { runCli } from '../helpers/cli.js';
import { openAiServerPerTest } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * runtime.budgets.max_cost_usd: one spending cap over every model call of a session, every resume
 * included, priced from the price table acode ships (gpt-4o-mini: $0.15 in, $0.60 out a million).
 */

const openai = openAiServerPerTest();

function workspace(spec: string) {
  const cwd = tempDir();
  writeFileSync(join(cwd, 'spec.yaml'), spec);
  return { cwd, env: { ACODE_HOME: join(cwd, 'home'), OPENAI_API_KEY: 'sk-cost-Q7vX2mLp9RzT4wKd8NfB' } };
}

/** A 4-step chain on gpt-4o-mini (or `model`) capped at `cap` dollars. */
function cappedChain(host: string, cap: string, model = 'gpt-4o-mini', provider = 'openai'): string {
  return chainSpec({ steps: 4, provider, host })
    .replace('model_id: test-model', `model_id: ${model}`)
    .replace('  max_tokens: 256\n', `  max_tokens: 256\n  budgets:\n    max_cost_usd: ${cap}\n    warn_threshold: 0.5\n`);
}

describe('runtime.budgets.max_cost_usd', () => {
  it('pauses once the dollars spent reach the cap, counts them across resumes, and goes on when raised', async () => {
    const { server, baseUrl } = openai.current();
    // 10,000 output tokens a step: $0.006 each, so the second step crosses $0.01.
    server.handler = () => ({ kind: 'answer', text: 'x'.repeat(10_000) });
    const ws = workspace(cappedChain(baseUrl, '0.01'));
    const run = await runCli(['run', 'spec.yaml', '--json'], ws);
    expect(run.code, run.stderr).toBe(1);
    const { session_id: id, status } = JSON.parse(run.stdout) as { session_id: string; status: string };
    expect(status).toBe('paused');
    expect(server.requests).toHaveLength(2);
    expect(run.stderr.match(/warning: \$0\.006\d* spent on model calls of runtime\.budgets\.max_cost_usd 0\.01/g)).toHaveLength(1);
    expect(run.stderr).toMatch(new RegExp(`budget reached: \\$0\\.01\\d* spent on model calls of runtime\\.budgets\\.max_cost_usd 0\\.01; to go on, raise it: acode resume ${id} --set runtime\\.budgets\\.max_cost_usd=0\\.02`));

    // A resume without a raised cap counts what the earlier run spent: it pauses before any call.
    const again = await runCli(['resume', id, '--json'], ws);
    expect(again.code, again.stderr).toBe(1);
    expect(again.stderr).toContain('budget reached');
    expect(server.requests).toHaveLength(2);

    const raised = await runCli(['resume', id, '--json', '--set', 'runtime.budgets.max_cost_usd=0.05'], ws);
    expect(raised.code, raised.stderr).toBe(0);
    expect(JSON.parse(raised.stdout)).toMatchObject({ status: 'completed', steps_skipped: 2, steps_executed: 2 });
    expect(raised.stderr).toContain('raised runtime.budgets.max_cost_usd 0.01 → 0.05');
    // No step was asked twice: four steps, four calls.
    expect(server.requests.map((r) => r.step)).toEqual([0, 1, 2, 3]);
  });

  it('is refused, by validate at its line and by run before anything is stored, for a model acode has no price for', async () => {
    const { server, baseUrl } = openai.current();
    const ws = workspace(cappedChain(baseUrl, '1', 'my-finetune'));
    const validate = await runCli(['validate', 'spec.yaml'], ws);
    expect(validate.code).toBe(2);
    expect(validate.stderr).toMatch(/spec\.yaml:10:\d+: error: runtime\.budgets\.max_cost_usd cannot be enforced: acode has no price for the model of agent 'worker' \(openai my-finetune\)/);
    const run = await runCli(['run', 'spec.yaml'], ws);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("runtime.budgets.max_cost_usd cannot be enforced: acode has no price for the model of agent 'worker' (openai my-finetune)");
    expect(run.stderr).toContain('nothing was run');
    expect(server.requests).toHaveLength(0);
    const sessions = join(ws.env.ACODE_HOME, 'sessions');
    expect(existsSync(sessions) ? readdirSync(sessions).filter((name) => !name.startsWith('.') && !name.endsWith('.json')) : []).toEqual([]);
  });

  it('is refused for the scripted provider, which has no prices', async () => {
    const ws = workspace(cappedChain('http://127.0.0.1:9', '1', 'gpt-4o-mini', 'scripted').replace(/ {2}host: .*\n/, ''));
    const run = await runCli(['run', 'spec.yaml'], ws);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("no price for the model of agent 'worker' (scripted gpt-4o-mini)");
  });
});
