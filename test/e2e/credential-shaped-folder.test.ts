import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const demo = fileURLToPath(new URL('../../examples/agent-files-demo.yaml', import.meta.url));

/** Resolves once `file` holds `text` (polled: the run writes it as it goes). */
async function waitForText(file: string, text: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(existsSync(file) && readFileSync(file, 'utf8').includes(text))) {
    if (Date.now() > deadline) throw new Error(`${file} never held ${text}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('a run in a folder named like a credential', () => {
  // FIXED: source/secrets/event-redaction.ts, source/store/session-index.ts: `sk-learn-experiments-2024` (an `sk-` key's shape)
  // became [REDACTED] in session.json, the index and the file events: resume refused for ever ("ran in …/[REDACTED], which no
  // longer exists"), and the browser's "this directory" never showed the session.
  it('is killed, resumed from there and completes; its folder keeps its name everywhere', async () => {
    const root = tempDir();
    const cwd = join(root, 'sk-learn-experiments-2024');
    mkdirSync(cwd);
    const home = join(root, 'home');
    const ws = { cwd, env: { ACODE_HOME: home } };
    const run = startCli(['run', demo, '--json'], ws);
    await waitForText(join(cwd, 'notes.md'), 'Notes on');
    const id = readdirSync(join(home, 'sessions'))[0]!;
    const log = join(home, 'sessions', id, 'events.jsonl');
    await waitForText(log, '"step_completed"');
    run.child.kill('SIGKILL');
    await run.done;

    const record = JSON.parse(readFileSync(join(home, 'sessions', id, 'session.json'), 'utf8')) as { cwd: string; spec_path: string };
    expect(record.cwd).toBe(cwd);
    expect(record.spec_path).toBe(demo);
    expect(readFileSync(log, 'utf8')).toContain(`"path":"${join(cwd, 'notes.md')}"`);
    const listed = JSON.parse((await runCli(['sessions', 'list', '--json'], ws)).stdout) as { session_id: string; cwd: string }[];
    expect(listed.find((row) => row.session_id === id)?.cwd).toBe(cwd);

    const resumed = await runCli(['resume', id, '--json'], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).not.toContain('REDACTED');
    expect(readFileSync(join(cwd, 'summary.md'), 'utf8')).toContain('# Summary');
    expect(readFileSync(join(cwd, 'artifacts', 'files-demo-report.md'), 'utf8')).toMatch(/1\. drafter[\s\S]*3\. editor/);
  });
});
