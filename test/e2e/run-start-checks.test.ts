import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { chainSpec } from '../helpers/chain-spec.js';
import { openAiServerPerTest } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const openai = openAiServerPerTest();

function workspace(spec: string) {
  const cwd = tempDir();
  const home = join(cwd, 'home');
  writeFileSync(join(cwd, 'spec.yaml'), spec);
  return { cwd, home, env: { ACODE_HOME: home } as Record<string, string> };
}

describe('before a run creates its session', () => {
  it('refuses OpenAI without OPENAI_API_KEY at once (exit 2), naming the variable, creating nothing', async () => {
    const ws = workspace(chainSpec({ steps: 2, provider: 'openai' }));
    const started = Date.now();
    const result = await runCli(['run', 'spec.yaml'], ws);
    expect(Date.now() - started).toBeLessThan(5000); // it had created a session and retried a 401 for ~21 s
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("acode: OPENAI_API_KEY is not set; export it (a key from platform.openai.com), or point runtime.host (or OPENAI_BASE_URL) at a server that needs none, such as Ollama\n");
    expect(existsSync(join(ws.home, 'sessions'))).toBe(false);
  });

  it('refuses a model the server does not offer (exit 17), before any session or model call', async () => {
    const { server, baseUrl } = openai.current();
    server.models = ['qwen2.5:latest'];
    const ws = workspace(chainSpec({ steps: 2, provider: 'ollama', host: baseUrl.replace(/\/v1$/, '') }));
    const result = await runCli(['run', 'spec.yaml'], ws);
    expect(result.code).toBe(17);
    expect(result.stderr).toBe(`acode: model test-model not offered by ${baseUrl} (it offers qwen2.5:latest). Pull it ('ollama pull test-model'), or set model_id in spec.yaml to one it offers; nothing was run ('--offline' skips this check)\n`);
    expect(server.modelListRequests).toHaveLength(1);
    expect(server.requests).toHaveLength(0);
    expect(existsSync(join(ws.home, 'sessions'))).toBe(false);
  });

  it('runs with --offline without asking, saying so; and when the server offers the model', async () => {
    const { server, baseUrl } = openai.current();
    server.models = ['qwen2.5:latest'];
    const ws = workspace(chainSpec({ steps: 2, provider: 'openai', host: baseUrl }));
    ws.env.OPENAI_API_KEY = 'sk-test-not-used';
    const offline = await runCli(['run', 'spec.yaml', '--offline'], ws);
    expect(offline.code, offline.stderr).toBe(0);
    expect(offline.stderr).toContain("acode: --offline: the provider was not asked whether it offers the spec's models");
    expect(server.modelListRequests).toHaveLength(0);
    server.models = ['test-model'];
    const checked = await runCli(['run', 'spec.yaml'], ws);
    expect(checked.code, checked.stderr).toBe(0);
    expect(server.modelListRequests).toHaveLength(1);
  });

  it('refuses --offline with --resume: a resume checks its models itself', async () => {
    const ws = workspace(chainSpec({ steps: 1, provider: 'scripted' }));
    const result = await runCli(['run', '--resume', 'abcd', '--offline'], ws);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--offline is chosen when a session starts');
  });
});
