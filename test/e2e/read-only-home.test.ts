import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chainSpec } from '../helpers/chain-spec.js';
import { runCli } from '../helpers/cli.js';
import { removeIndex } from '../helpers/index-files.js';
import { remount, smallTmpfs, tmpfsUnavailable } from '../helpers/small-tmpfs.js';
import { tempDir } from '../helpers/temp-dir.js';

describe.skipIf(tmpfsUnavailable !== null)('a read-only ACODE_HOME (a real tmpfs remounted read-only)', () => {
  it('lists and shows without writing, and every command that changes sessions says the home is read-only', async () => {
    const disk = smallTmpfs('8m');
    const home = join(disk, 'home');
    const cwd = tempDir();
    const env = { ACODE_HOME: home };
    writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps: 3, provider: 'scripted', scripted: '  scripted:\n    faults:\n      - { step: 1, kind: crash }' }));
    expect((await runCli(['run', 'spec.yaml'], { cwd, env })).signal).toBe('SIGKILL');
    const id = (JSON.parse((await runCli(['sessions', 'list', '--json'], { cwd, env })).stdout) as { session_id: string }[])[0]!.session_id;
    // The index is a cache, so a listing rebuilds it when it is gone: here it cannot save it.
    removeIndex(home);
    remount(disk, 'ro');

    const read = [['sessions', 'list'], ['sessions', 'list', '--json'], ['sessions', 'list', '--resumable'], ['sessions', 'show', id], ['sessions', 'show', id, '--json'], ['sessions', 'history', id]];
    for (const args of read) {
      const result = await runCli(args, { cwd, env });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stdout).toContain(id);
      expect(result.stderr).not.toMatch(/^\s+at /m);
    }
    // A dry run reads as the others do, and exits as the resume it stands in for would: refused, the home being read-only.
    const dry = await runCli(['resume', '--dry-run'], { cwd, env });
    expect(dry.stdout).toContain(`would resume session ${id}`);
    expect(dry.code).toBe(1);
    expect(dry.stderr).toBe(`acode: dry run: the resume would stop here (exit 1): cannot resume session ${id}: ${home} is on a read-only file system. Remount it read-write, or set ACODE_HOME to a writable folder\n`);
    const listed = JSON.parse((await runCli(['sessions', 'list', '--json'], { cwd, env })).stdout) as { session_id: string; resumable: boolean }[];
    expect(listed).toEqual([expect.objectContaining({ session_id: id, resumable: true })]);

    const write: [string[], string][] = [
      [['resume'], `resume session ${id}`], [['resume', id], `resume session ${id}`], [['run', '--resume', id], `resume session ${id}`],
      [['sessions', 'delete', id, '--force'], `delete session ${id}`], [['sessions', 'unlock', id, '--force'], `unlock session ${id}`],
      [['run', 'spec.yaml'], 'start a session'], [['fork', id], `fork session ${id}`],
    ];
    for (const [args, action] of write) {
      const result = await runCli(args, { cwd, env });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(1);
      expect(result.stderr).toBe(`acode: cannot ${action}: ${home} is on a read-only file system. Remount it read-write, or set ACODE_HOME to a writable folder\n`);
    }
  }, 60_000);
});

describe('a home whose files are not what acode left there', () => {
  // FIXED: source/cli.tsx (unusableFile): a folder in place of the index log (or a file acode may not read: a `sudo acode`
  // left it root's) printed "internal error" and a stack trace in every command.
  it('names the file and what to do, without a stack trace', async () => {
    const cwd = tempDir();
    const home = join(cwd, 'home');
    const ws = { cwd, env: { ACODE_HOME: home } };
    writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps: 1, provider: 'scripted' }).replace(/outputs:[\s\S]*$/, ''));
    expect((await runCli(['run', 'spec.yaml'], ws)).code).toBe(0);
    // A file acode keeps that is a folder now (a restore gone wrong): an index log is rebuilt (hidden-index-folders), a session's spec cannot be.
    const [id] = readdirSync(join(home, 'sessions'));
    const spec = join(home, 'sessions', id!, 'spec.json');
    rmSync(spec);
    mkdirSync(spec);
    const listed = await runCli(['sessions', 'show', id!], ws);
    expect(listed.code).toBe(1);
    expect(listed.stderr).toContain(`${spec} cannot be read (EISDIR). Restore it from a backup`);
    expect(listed.stderr).not.toMatch(/internal error|\n\s+at /);
  });
});
