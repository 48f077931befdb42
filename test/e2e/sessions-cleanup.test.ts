import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { chainSpec } from '../helpers/chain-spec.js';
import { cliPath, runCli, startCli } from '../helpers/cli.js';
import { TmuxTerminal } from '../helpers/tmux.js';
import { tempDir } from '../helpers/temp-dir.js';

function workspace() {
  const cwd = tempDir();
  const home = join(cwd, 'home');
  writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps: 1, provider: 'scripted' }).replace(/outputs:[\s\S]*$/, ''));
  writeFileSync(join(cwd, 'slow.yaml'), chainSpec({ steps: 1, provider: 'scripted', scripted: '  scripted:\n    latency_ms: 60000' }).replace(/outputs:[\s\S]*$/, ''));
  return { cwd, home, env: { ACODE_HOME: home } };
}

const sessionIds = (home: string) => readdirSync(join(home, 'sessions')).filter((name) => !name.startsWith('.')).sort();

/** Moves a session's last update `days` into the past, and drops the index so that it is rebuilt from the sessions. */
function age(home: string, id: string, days: number, status?: string) {
  const file = join(home, 'sessions', id, 'session.json');
  const record = JSON.parse(readFileSync(file, 'utf8')) as { updated_at: string; created_at: string; checkpoint: { status: string } };
  record.updated_at = record.created_at = new Date(Date.now() - days * 86_400_000).toISOString();
  if (status) record.checkpoint.status = status;
  writeFileSync(file, JSON.stringify(record));
  for (const name of readdirSync(home)) if (name.startsWith('index')) rmSync(join(home, name));
}

async function sessions(ws: ReturnType<typeof workspace>, n: number, name?: string) {
  for (let i = 0; i < n; i++) expect((await runCli(['run', 'spec.yaml', ...(name ? ['--name', `${name}-${i}`] : [])], ws)).code).toBe(0);
  return sessionIds(ws.home);
}

describe('acode sessions cleanup', () => {
  it('with --json, prints the sessions it would delete, then those it deleted, as one object on stdout', async () => {
    const ws = workspace();
    const [old, fresh] = await sessions(ws, 2);
    age(ws.home, old!, 40);
    const dry = await runCli(['sessions', 'cleanup', '--older-than', '30d', '--dry-run', '--json'], ws);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dry_run: true, sessions: [{ session_id: old, status: 'completed', name: null }], kept: [] });
    expect(sessionIds(ws.home)).toEqual([old, fresh].sort());
    const done = await runCli(['sessions', 'cleanup', '--older-than', '30d', '--yes', '--json'], ws);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ dry_run: false, sessions: [{ session_id: old, status: 'completed' }], kept: [] });
    expect(sessionIds(ws.home)).toEqual([fresh]);
    const nothing = await runCli(['sessions', 'cleanup', '--older-than', '30d', '--yes', '--json'], ws);
    expect(JSON.parse(nothing.stdout)).toEqual({ dry_run: false, sessions: [], kept: [] });
  });

  it('lists old finished sessions with --dry-run and deletes nothing', async () => {
    const ws = workspace();
    const [old, fresh] = await sessions(ws, 2);
    age(ws.home, old!, 40);
    const result = await runCli(['sessions', 'cleanup', '--dry-run'], ws);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('would delete 1 session (completed, failed, cancelled, last updated more than 30d ago)');
    expect(result.stdout).toContain(old);
    expect(result.stdout).not.toContain(fresh);
    expect(sessionIds(ws.home)).toHaveLength(2);
  });

  it('without a terminal it needs --yes, then deletes only what it listed and frees the names', async () => {
    const ws = workspace();
    const ids = await sessions(ws, 3, 'job');
    const named = (id: string) => (JSON.parse(readFileSync(join(ws.home, 'sessions', id, 'session.json'), 'utf8')) as { name: string }).name;
    const [a, b, c] = ids as [string, string, string];
    age(ws.home, a, 10);
    age(ws.home, b, 3, 'failed');
    const refused = await runCli(['sessions', 'cleanup', '--older-than', '2d', '--status', 'completed,failed'], ws);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('add --yes');
    expect(sessionIds(ws.home)).toHaveLength(3);
    const freed = named(a);
    const done = await runCli(['sessions', 'cleanup', '--older-than', '2d', '--status', 'completed,failed', '--yes'], ws);
    expect(done.code).toBe(0);
    expect(done.stderr).toContain('deleted 2 sessions');
    expect(sessionIds(ws.home)).toEqual([c]);
    expect((await runCli(['sessions', 'list', '--json'], ws)).stdout).not.toContain(a);
    expect((await runCli(['run', 'spec.yaml', '--name', freed], ws)).code).toBe(0);
  });

  it('never deletes a session a live process runs', async () => {
    const ws = workspace();
    const live = startCli(['run', 'slow.yaml'], ws);
    try {
      await new Promise<void>((resolve) => live.child.stderr!.on('data', (chunk: Buffer) => chunk.toString().includes('▶') && resolve()));
      const [id] = sessionIds(ws.home) as [string];
      const result = await runCli(['sessions', 'cleanup', '--status', 'running', '--older-than', '0s', '--yes'], ws);
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(`keeping ${id}: a live process runs it`);
      expect(sessionIds(ws.home)).toEqual([id]);
    } finally {
      live.child.kill('SIGKILL');
      await live.done;
    }
  });

  it('takes its defaults from retention settings, and refuses a bad age', async () => {
    const ws = workspace();
    const [old] = await sessions(ws, 1);
    age(ws.home, old!, 3);
    mkdirSync(join(ws.cwd, '.acode'));
    writeFileSync(join(ws.cwd, '.acode', 'config.yml'), 'retention:\n  older_than: 2d\n  status: [completed]\n');
    const result = await runCli(['sessions', 'cleanup', '--dry-run'], ws);
    expect(result.stdout).toContain('would delete 1 session (completed, last updated more than 2d ago)');
    const bad = await runCli(['sessions', 'cleanup', '--older-than', 'soon'], ws);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--older-than 'soon' is not an age");
    writeFileSync(join(ws.cwd, '.acode', 'config.yml'), 'retention:\n  older_than: forever\n');
    const badConfig = await runCli(['sessions', 'cleanup', '--dry-run'], ws);
    expect(badConfig.code).toBe(2);
    expect(badConfig.stderr).toMatch(/config\.yml:2:\d+: error: retention\.older_than: not an age/);
  });

  it('asks on a terminal: n keeps every session, y deletes the ones it listed', async () => {
    const ws = workspace();
    const ids = await sessions(ws, 2);
    const terminal = new TmuxTerminal(ws.cwd, { ...ws.env, PATH: process.env.PATH ?? '' });
    try {
      const command = `'${process.execPath}' '${cliPath}' sessions cleanup --older-than 0s`;
      terminal.run(command);
      const asked = await terminal.waitFor((screen) => screen.includes('[y/N]'));
      for (const id of ids) expect(asked).toContain(id);
      terminal.run('n');
      await terminal.waitFor((screen) => screen.includes('kept them'));
      expect(sessionIds(ws.home)).toEqual(ids);
      terminal.run('clear');
      terminal.run(command);
      await terminal.waitFor((screen) => screen.includes('[y/N]'));
      terminal.run('y');
      await terminal.waitFor((screen) => screen.includes('deleted 2 sessions'));
      expect(sessionIds(ws.home)).toEqual([]);
    } finally {
      terminal.close();
    }
  });

  // FIXED: source/session/cleanup.ts, store/local-repository.ts (deleteIfIdle): the list the person said y to was trusted — a
  // session resumed to completion while the question waited was deleted though "completed" was not asked for.
  it('keeps a session that changed while the question waited', async () => {
    const ws = workspace();
    const [id] = await sessions(ws, 1);
    age(ws.home, id!, 40, 'paused');
    const terminal = new TmuxTerminal(ws.cwd, { ...ws.env, PATH: process.env.PATH ?? '' });
    try {
      terminal.run(`'${process.execPath}' '${cliPath}' sessions cleanup --status paused --older-than 30d`);
      await terminal.waitFor((screen) => screen.includes('[y/N]') && screen.includes(id!));
      // Meanwhile the session is taken up and written to (as a resume would): completed, updated now.
      const file = join(ws.home, 'sessions', id!, 'session.json');
      const record = JSON.parse(readFileSync(file, 'utf8')) as { updated_at: string; checkpoint: { status: string } };
      record.updated_at = new Date().toISOString();
      record.checkpoint.status = 'completed';
      writeFileSync(file, JSON.stringify(record));
      terminal.run('y');
      const done = await terminal.waitFor((screen) => screen.includes('deleted 0 sessions'));
      expect(done).toContain(`kept ${id}: it changed meanwhile (resumed?) and no longer matches`);
      expect(sessionIds(ws.home)).toEqual([id]);
    } finally {
      terminal.close();
    }
  });

  // FIXED: source/commands/sessions.ts: the lock was checked before the question only — a resume started while it waited
  // was deleted under it.
  it('sessions delete answered y refuses a session a process took up while the question waited', async () => {
    const ws = workspace();
    const [id] = await sessions(ws, 1);
    const terminal = new TmuxTerminal(ws.cwd, { ...ws.env, PATH: process.env.PATH ?? '' });
    const holder = startCli(['run', 'slow.yaml'], ws);
    try {
      terminal.run(`'${process.execPath}' '${cliPath}' sessions delete ${id}; echo "EXIT=$?"`);
      await terminal.waitFor((screen) => screen.includes('[y/N]'));
      // Another process takes the session's lock meanwhile: a live holder, as a resume is.
      const lockOf = (sid: string) => join(ws.home, 'sessions', sid, 'lock');
      const held = await vi.waitFor(
        () => {
          const slow = sessionIds(ws.home).find((sid) => sid !== id);
          if (!slow) throw new Error('the slow run made no session yet');
          return readFileSync(lockOf(slow));
        },
        { timeout: 10_000, interval: 25 },
      );
      writeFileSync(lockOf(id!), held);
      terminal.run('y');
      const answered = await terminal.waitFor((screen) => /EXIT=\d+/.test(screen));
      expect(answered).toContain('while you answered; it was not deleted');
      expect(answered).toContain('EXIT=16');
      expect(sessionIds(ws.home)).toContain(id);
    } finally {
      holder.child.kill('SIGKILL');
      await holder.done;
      terminal.close();
    }
  });

  // FIXED: source/cli.tsx (confirm): Ctrl+C or Ctrl+D at a [y/N] question printed an internal error and a stack trace.
  it.each([['C-c'], ['C-d']])('%s at the question keeps every session, without a trace', async (key) => {
    const ws = workspace();
    const ids = await sessions(ws, 1);
    const terminal = new TmuxTerminal(ws.cwd, { ...ws.env, PATH: process.env.PATH ?? '' });
    try {
      terminal.run(`'${process.execPath}' '${cliPath}' sessions cleanup --older-than 0s; echo "EXIT=$?"`);
      await terminal.waitFor((screen) => screen.includes('[y/N]'));
      terminal.press(key);
      const done = await terminal.waitFor((screen) => /EXIT=\d+/.test(screen));
      // On a line of its own, not after the question.
      expect(done).toMatch(/^kept them$/m);
      expect(done).toContain('EXIT=0');
      expect(done).not.toMatch(/internal error|AbortError|at /);
      expect(sessionIds(ws.home)).toEqual(ids);
    } finally {
      terminal.close();
    }
  });

  // FIXED: source/cli.tsx (confirm): Ctrl+Z then fg at the question ended the command (exit 13: readline left its input paused), and under sh it never stopped.
  it('Ctrl+Z at the question suspends the whole job; fg asks again, and y deletes', async () => {
    const ws = workspace();
    const [id] = await sessions(ws, 1);
    const terminal = new TmuxTerminal(ws.cwd, { ...ws.env, PATH: process.env.PATH ?? '' });
    try {
      terminal.run(`sh -c "'${process.execPath}' '${cliPath}' sessions delete ${id}; echo EXIT=\\$?"`);
      await terminal.waitFor((screen) => screen.includes('[y/N]'));
      terminal.press('C-z');
      await terminal.waitFor((screen) => /Stopped/.test(screen));
      terminal.run('clear; fg');
      await terminal.waitFor((screen) => screen.includes('[y/N]'));
      terminal.run('y');
      const done = await terminal.waitFor((screen) => /EXIT=\d+/.test(screen));
      expect(done).toContain(`deleted session ${id}`);
      expect(done).toContain('EXIT=0');
      expect(sessionIds(ws.home)).toEqual([]);
    } finally {
      terminal.close();
    }
  });

  // FIXED: source/session/cleanup.ts: a session cleanup may not delete (another user's after a sudo acode; here immutable)
  // stopped it midway with a stack trace, the deletions before it unreported and the sessions after it untouched.
  it.skipIf(!immutableFolders())('keeps a session it cannot delete, says why, and deletes the rest', async () => {
    const ws = workspace();
    const [stuck, other] = await sessions(ws, 2);
    const dir = join(ws.home, 'sessions', stuck!);
    execFileSync('chattr', ['+i', dir]);
    try {
      const result = await runCli(['sessions', 'cleanup', '--older-than', '0s', '--yes'], ws);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(new RegExp(`kept ${stuck}: could not delete it: EPERM on ${dir}`));
      expect(result.stderr).toContain('deleted 1 session');
      expect(result.stderr).not.toMatch(/internal error/);
      expect(sessionIds(ws.home)).toEqual([stuck]);
      expect(sessionIds(ws.home)).not.toContain(other);
    } finally {
      execFileSync('chattr', ['-i', dir]);
    }
  });
});

describe('a deleted session', () => {
  // FIXED: source/store/session-store.ts (delete): removed file by file in place, a big session was half there for a while — a
  // resume that took its lock over (the deleter beats no heartbeat) ran on in it. It goes out of sight in one rename first.
  it('goes out of sight in one rename; one that cannot be removed is put back under its name, and leftovers of a deleter that died are swept', async () => {
    const ws = workspace();
    const [stuck, other] = await sessions(ws, 2);
    const sessionsDir = join(ws.home, 'sessions');
    // A deleter killed midway left its renamed folder.
    const leftover = join(sessionsDir, `.${'e'.repeat(16)}.deleting.999999999.abc123`);
    mkdirSync(leftover);
    // A listing leaves it (it may hold many files: removing them froze the browser); the next delete removes it.
    expect((await runCli(['sessions', 'list'], ws)).code).toBe(0);
    expect(existsSync(leftover)).toBe(true);
    const canLock = immutableFolders();
    const pinned = join(sessionsDir, stuck!, 'session.json');
    const before = readFileSync(pinned, 'utf8');
    if (canLock) execFileSync('chattr', ['+i', pinned]);
    try {
      const result = await runCli(['sessions', 'cleanup', '--older-than', '0s', '--yes'], ws);
      expect(result.code, result.stderr).toBe(0);
      if (canLock) {
        expect(result.stderr).toMatch(new RegExp(`kept ${stuck}: could not delete it: EPERM on ${join(sessionsDir, stuck!)}`));
        expect(readFileSync(pinned, 'utf8')).toBe(before);
        expect((await runCli(['sessions', 'show', stuck!], ws)).code).toBe(0);
      }
      expect(sessionIds(ws.home)).toEqual(canLock ? [stuck] : []);
      expect(readdirSync(sessionsDir).filter((name) => name.startsWith('.'))).toEqual([]);
      expect(sessionIds(ws.home)).not.toContain(other);
    } finally {
      if (canLock) execFileSync('chattr', ['-i', pinned]);
    }
  });
});

/** Whether this machine can make a folder immutable (chattr +i: root, on a file system that has it). */
function immutableFolders(): boolean {
  const dir = tempDir();
  try {
    execFileSync('chattr', ['+i', dir], { stdio: 'ignore' });
    execFileSync('chattr', ['-i', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('acode sessions cleanup --older-than with a negative age', () => {
  // FIXED: source/argument-typos.ts: a negative age read as an unknown flag ('Unknown flag\n-5d', naming neither --older-than nor
  // what an age is); a value starting with '-' after --older-than is now refused as not an age, with what an age looks like.
  it('sessions cleanup --older-than -5d says what an age is', async () => {
    const ws = workspace();
    const result = await runCli(['sessions', 'cleanup', '--older-than', '-5d', '--dry-run'], ws);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--older-than');
  });
});
