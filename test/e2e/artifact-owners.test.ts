import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const example = fileURLToPath(new URL('../../examples/chain-3-step-resume-demo.yaml', import.meta.url));

/** The README's example in a fresh folder, without its 2.5 s a step (kept there to leave time to kill it). */
function workspace() {
  const cwd = tempDir();
  writeFileSync(join(cwd, 'demo.yaml'), readFileSync(example, 'utf8').replace(/latency_ms: \d+/, 'latency_ms: 0'));
  return { cwd, env: { ACODE_HOME: join(tempDir(), 'home') } };
}

const report = (cwd: string) => join(cwd, 'artifacts', 'ai-agents-report.md');
const args = ['run', 'demo.yaml', '--var', 'topic=AI agents', '--json'];
const idOf = (stdout: string): string => (JSON.parse(stdout) as { session_id: string }).session_id;

describe("artifacts an earlier session wrote", () => {
  it('are replaced by the README example run a second time, naming the session that wrote them', async () => {
    const ws = workspace();
    const first = await runCli(args, ws);
    expect(first.code, first.stderr).toBe(0);
    const written = readFileSync(report(ws.cwd), 'utf8');
    const second = await runCli(args, ws);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`acode: replacing artifacts/ai-agents-report.md, written by session ${idOf(first.stdout)} and unchanged since`);
    // Said again as it is written (a resume, or a path made from a response, is checked only then).
    expect(second.stderr).toMatch(new RegExp(`wrote .*ai-agents-report\\.md \\(\\d+ bytes\\), replacing session ${idOf(first.stdout)}'s, unchanged since it wrote it`));
    expect(readFileSync(report(ws.cwd), 'utf8')).toBe(written);
    // Now the second session's: a third run names it.
    const third = await runCli(args, ws);
    expect(third.code, third.stderr).toBe(0);
    expect(third.stderr).toContain(`written by session ${idOf(second.stdout)}`);
  });

  it('are refused once a person edited them, naming --force and the session that last wrote them', async () => {
    const ws = workspace();
    const first = await runCli(args, ws);
    expect(first.code, first.stderr).toBe(0);
    writeFileSync(report(ws.cwd), 'my edits');
    const again = await runCli(args, ws);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`already exists and was changed since session ${idOf(first.stdout)} wrote it`);
    expect(again.stderr).toContain('--force');
    expect(again.stderr).not.toContain('this session');
    expect(again.stderr).not.toMatch(/\n\s+at /);
    expect(readFileSync(report(ws.cwd), 'utf8')).toBe('my edits');
  });

  it('refuse a file no session wrote without saying "this session" (none exists yet)', async () => {
    const ws = workspace();
    mkdirSync(join(ws.cwd, 'artifacts'));
    writeFileSync(report(ws.cwd), 'a person wrote this');
    const ran = await runCli(args, ws);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('already exists and no acode session wrote it; move it away, or pass --force');
    expect(ran.stderr).not.toContain('this session');
    expect(readFileSync(report(ws.cwd), 'utf8')).toBe('a person wrote this');
  });
});
