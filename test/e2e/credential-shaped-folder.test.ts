import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { runCli, startCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const demo = fileURLToPath(new URL('../../examples/agent-files-demo.yaml', import.meta.url));
const chainDemo = fileURLToPath(new URL('../../examples/chain-3-step-resume-demo.yaml', import.meta.url));

/** Resolves once `file` holds `text` (the run writes it as it goes). */
async function waitForText(file: string, text: string): Promise<void> {
  await vi.waitFor(
    () => {
      if (!(existsSync(file) && readFileSync(file, 'utf8').includes(text))) throw new Error(`${file} never held ${text}`);
    },
    { timeout: 20_000, interval: 20 },
  );
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

  // FIXED: source/session/withheld-variables.ts: a variable shaped like a key is stored [REDACTED]; the resume ran its
  // remaining steps with "[REDACTED]" for it (the report came out as redacted_-report.md). Now it asks for it back.
  it('a variable stored without its value is asked back by resume and fork, and the resume then runs with it', async () => {
    const cwd = tempDir();
    const home = join(cwd, 'home');
    const ws = { cwd, env: { ACODE_HOME: home } };
    const topic = 'sk-learn-experiments-2024';
    const run = startCli(['run', chainDemo, '--var', `topic=${topic}`, '--json'], ws);
    const sessions = join(home, 'sessions');
    const id = await vi.waitFor(
      () => {
        const made = existsSync(sessions) ? readdirSync(sessions).filter((name) => !name.startsWith('.')) : [];
        if (!made.length) throw new Error('the run made no session');
        return made[0]!;
      },
      { timeout: 20_000, interval: 20 },
    );
    const log = join(sessions, id, 'events.jsonl');
    await waitForText(log, '"step_completed"');
    run.child.kill('SIGKILL');
    await run.done;
    // Stored as everything shaped like a key is (an answer quoting it is content, and keeps it).
    expect((JSON.parse(readFileSync(join(sessions, id, 'session.json'), 'utf8')) as { variables: Record<string, string> }).variables).toEqual({ topic: '[REDACTED]' });
    const before = readFileSync(log, 'utf8');

    const dry = await runCli(['resume', id, '--dry-run', '--json'], ws);
    // Exits as the resume would (below): without the value given back, it is refused.
    expect(dry.code, dry.stderr).toBe(2);
    expect((JSON.parse(dry.stdout) as { missing_variables: string[] }).missing_variables).toEqual(['topic']);
    const refused = await runCli(['resume', id], ws);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`stored variable 'topic' without its value`);
    expect(refused.stderr).toContain(`acode resume ${id} --var topic=…`);
    const stray = await runCli(['resume', id, '--var', 'other=x'], ws);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain(`has no variable 'other'; it needs --var topic=…`);
    const fork = await runCli(['fork', id], ws);
    expect(fork.code).toBe(2);
    expect(fork.stderr).toContain(`acode fork ${id} --var topic=…`);
    // Refused before anything changed: no event, no new session.
    expect(readFileSync(log, 'utf8')).toBe(before);
    expect(readdirSync(sessions)).toEqual([id]);

    const resumed = await runCli(['resume', id, '--var', `topic=${topic}`, '--json'], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    const report = readFileSync(join(cwd, 'artifacts', `${topic}-report.md`), 'utf8');
    expect(report).toContain(`Findings on ${topic}`);
    expect(report).not.toContain('REDACTED');
    expect(readdirSync(join(cwd, 'artifacts'))).toEqual([`${topic}-report.md`]);
  });
});
