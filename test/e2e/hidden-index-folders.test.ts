import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { homeWithSession } from '../helpers/home-with-session.js';


const indexFiles = (home: string) => readdirSync(home).filter((name) => /^index\.\d+\.jsonl?$/.test(name));

describe('an index file replaced by a folder', () => {
  // FIXED (issue 33): a base (index.<n>.json) turned folder failed every listing with EISDIR, a log (index.<n>.jsonl) every
  // listing and every run ("cannot read …: it is a folder"), the run leaving a session never started.
  it.each([['base', '.json'], ['log', '.jsonl']])('is rebuilt from the sessions, said once, and leaves one generation: its %s', async (_kind, suffix) => {
    const s = await homeWithSession();
    const name = indexFiles(s.home).find((file) => file.endsWith(suffix))!;
    rmSync(join(s.home, name), { recursive: true });
    mkdirSync(join(s.home, name));
    writeFileSync(join(s.home, name, 'stray'), 'x');
    const first = await runCli(['sessions', 'list'], s);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(s.id);
    expect(first.stderr).toBe(`acode: the session index had a folder named ${name} in ${s.home}, where acode keeps a file; rebuilt the index from the sessions and removed the folder\n`);
    for (const args of [['sessions', 'list'], ['sessions', 'list', '--json'], ['sessions', 'cleanup', '--dry-run']]) {
      const again = await runCli(args, s);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).not.toMatch(/internal error|EISDIR|rebuilt|folder/);
    }
    expect(indexFiles(s.home)).toHaveLength(2);
  });

  it('a log that is a folder does not stop a run: the index is rebuilt as it records the session, said once', async () => {
    const s = await homeWithSession();
    const log = indexFiles(s.home).find((file) => file.endsWith('.jsonl'))!;
    rmSync(join(s.home, log));
    mkdirSync(join(s.home, log));
    const ran = await runCli(['run', 'spec.yaml'], s);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr.match(/rebuilt the index from the sessions and removed the folder/g)).toHaveLength(1);
    const listed = await runCli(['sessions', 'list', '--json'], s);
    expect(listed.stderr).toBe('');
    const rows = JSON.parse(listed.stdout) as { status: string }[];
    expect(rows.map((row) => row.status)).toEqual(['completed', 'completed']);
    expect(indexFiles(s.home)).toHaveLength(2);
  });
});

describe('names starting with a dot', () => {
  it('are never sessions: show and resume refuse a staging folder instead of treating it as a session', async () => {
    const s = await homeWithSession();
    const staging = `.${s.id}.creating.4242`;
    cpSync(join(s.home, 'sessions', s.id), join(s.home, 'sessions', staging), { recursive: true });
    for (const args of [['sessions', 'show', `.${s.id}`], ['sessions', 'show', staging], ['resume', staging]]) {
      const result = await runCli(args, s);
      // ACODE-RESUME-005 (no such session) exits 1 wherever it is said.
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toMatch(/is not a session: names starting with a dot are folders acode is creating or deleting/);
      expect(result.stderr).not.toMatch(/deleted meanwhile|\n\s+at /);
    }
  });
});
