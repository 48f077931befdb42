import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chainSpec } from '../helpers/chain-spec.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

function workspace() {
  const cwd = tempDir();
  writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps: 1, provider: 'scripted' }));
  return { cwd, env: { ACODE_HOME: join(tempDir(), 'home') } };
}

/** The one JSON line an error is with --json. */
function jsonError(stderr: string): { error: { code: string | null; exit: number; message: string } } {
  const lines = stderr.split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as { error: { code: string | null; exit: number; message: string } };
}

describe('errors', () => {
  it('exit with one code for one error code: no session matching an id prefix or a name is ACODE-RESUME-005, exit 1', async () => {
    const ws = workspace();
    for (const id of ['3ead', 'zzzzz']) {
      for (const args of [['sessions', 'show', id], ['sessions', 'history', id], ['sessions', 'delete', id, '--force'], ['sessions', 'unlock', id], ['resume', id], ['fork', id]]) {
        const result = await runCli(args, ws);
        expect(result.stderr).toContain(`acode: ACODE-RESUME-005: no session matches '${id}'`);
        expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(1);
      }
    }
  });

  it('are one JSON object on stderr with --json, naming the code, the exit and the message', async () => {
    const ws = workspace();
    const missing = await runCli(['sessions', 'show', 'zzzzz', '--json'], ws);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(jsonError(missing.stderr)).toEqual({ error: { code: 'ACODE-RESUME-005', exit: 1, message: expect.stringContaining("no session matches 'zzzzz'") } });
    const none = await runCli(['resume', '--json'], ws);
    expect(none.code).toBe(14);
    expect(jsonError(none.stderr).error).toMatchObject({ code: 'ACODE-RESUME-001', exit: 14 });
    // A usage error has its code too (ACODE-USAGE-001, exit 2): a script never reads a null code.
    const usage = await runCli(['sessions', 'list', '--json', '--limit', 'many'], ws);
    expect(usage.code).toBe(2);
    expect(jsonError(usage.stderr)).toEqual({ error: { code: 'ACODE-USAGE-001', exit: 2, message: "--limit 'many' is not a number of sessions; give a whole number of at least 1 (--limit 20)" } });
    // Found while the arguments are read (a flag the command does not take), or a prefix too short to look up.
    for (const args of [['sessions', 'show', 'zzzzz', '--json', '--yes'], ['sessions', 'show', '3e', '--json'], ['resm', '--json']]) {
      const misuse = await runCli(args, ws);
      expect(misuse.code, args.join(' ')).toBe(2);
      expect(jsonError(misuse.stderr).error, args.join(' ')).toMatchObject({ code: 'ACODE-USAGE-001', exit: 2 });
    }
    // Without --json, the plain line.
    expect((await runCli(['sessions', 'list', '--limit', '0'], ws)).stderr).toBe("acode: --limit '0' is not a number of sessions; give a whole number of at least 1 (--limit 20)\n");
  });
});

describe('sessions list --limit N', () => {
  it('lists only the N newest', async () => {
    const ws = workspace();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((JSON.parse((await runCli(['run', 'spec.yaml', '--json'], ws)).stdout) as { session_id: string }).session_id);
    const listed = JSON.parse((await runCli(['sessions', 'list', '--limit', '2', '--json'], ws)).stdout) as { session_id: string }[];
    expect(listed.map((row) => row.session_id)).toEqual([ids[2], ids[1]]);
    const table = await runCli(['sessions', 'list', '--limit', '1'], ws);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain(ids[2]!.slice(0, 8));
    expect(table.stdout).not.toContain(ids[1]!.slice(0, 8));
  });
});
