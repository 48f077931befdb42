import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { homeWithSession } from '../helpers/home-with-session.js';


const indexFiles = (home: string) => readdirSync(home).filter((name) => /^index\.\d+\.jsonl?$/.test(name));

describe('an index file replaced by a folder', () => {
  it('is rebuilt from the sessions, said once, and leaves one generation', async () => {
    const s = await homeWithSession();
    const base = indexFiles(s.home).find((name) => name.endsWith('.json'))!;
    rmSync(join(s.home, base));
    mkdirSync(join(s.home, base));
    writeFileSync(join(s.home, base, 'stray'), 'x');
    const first = await runCli(['sessions', 'list'], s);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(s.id);
    expect(first.stderr).toBe(`acode: the session index had a folder named ${base} in ${s.home}, where acode keeps a file; rebuilt the index from the sessions and removed the folder\n`);
    for (const args of [['sessions', 'list'], ['sessions', 'list', '--json'], ['sessions', 'cleanup', '--dry-run']]) {
      const again = await runCli(args, s);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).not.toMatch(/internal error|EISDIR|rebuilt/);
    }
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
