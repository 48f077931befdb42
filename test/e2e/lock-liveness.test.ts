import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chainSpec } from '../helpers/chain-spec.js';
import { cliPath, runCli } from '../helpers/cli.js';
import { parseAllSessionFiles } from '../helpers/session-files.js';
import { tempDir } from '../helpers/temp-dir.js';

function workspace(spec: string) {
  const cwd = tempDir();
  const home = join(tempDir(), 'home');
  writeFileSync(join(cwd, 'spec.yaml'), spec);
  return { cwd, home, env: { ACODE_HOME: home } };
}

/** Polls `check` every 20 ms until it holds; fails after `ms`. */
async function waitUntil(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function procState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2];
  } catch {
    return undefined;
  }
}

const readText = (path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

describe('telling a live lock owner from a dead one', () => {
  it('resumes a session whose owner was killed and left a zombie by a parent that never reaps it', async () => {
    const ws = workspace(chainSpec({ steps: 2, provider: 'scripted', scripted: '  scripted:\n    latency_ms: 1500' }));
    const err = join(ws.cwd, 'run.err');
    // sh starts acode in the background, then becomes `sleep`, which never waits for its children:
    // like a container whose PID 1 does not reap, the killed acode stays a zombie.
    const parent = spawn('sh', ['-c', `"${process.execPath}" "${cliPath}" run spec.yaml >/dev/null 2>"${err}" & echo $!; exec sleep 60`], {
      cwd: ws.cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...ws.env },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      let out = '';
      parent.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      await waitUntil('the acode pid', () => out.includes('\n'));
      const pid = Number(out.trim());
      await waitUntil('step 1 to start', () => readText(err).includes('▶ step 1/2'));
      process.kill(pid, 'SIGKILL');
      await waitUntil(`pid ${pid} to be a zombie`, () => procState(pid) === 'Z');
      expect(() => process.kill(pid, 0)).not.toThrow(); // what made the lock look held

      const resumed = await runCli(['resume', '--json'], ws);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toMatch(/took over the session lock: its owner \(pid \d+\) is no longer running/);
      expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'completed', steps_total: 2 });
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('says which session and which pid hold the lock, exit 16, when every resumable session is in use', async () => {
    const ws = workspace(chainSpec({ steps: 3, provider: 'scripted', scripted: '  scripted:\n    faults:\n      - { step: 1, kind: crash }' }));
    expect((await runCli(['run', 'spec.yaml'], ws)).signal).toBe('SIGKILL');
    const [record] = parseAllSessionFiles(ws.home);
    const id = record!.session_id;
    // This test process is the live owner, with a fresh heartbeat.
    const now = new Date().toISOString();
    writeFileSync(join(ws.home, 'sessions', id, 'lock'), JSON.stringify({ pid: process.pid, host: hostname(), proc_start: null, started_at: now, heartbeat_at: now, token: 't' }));
    const before = readFileSync(join(ws.home, 'sessions', id, 'events.jsonl'), 'utf8');

    const refused = await runCli(['resume'], ws);
    expect(refused.code).toBe(16);
    expect(refused.stderr).toContain('ACODE-RESUME-003');
    expect(refused.stderr).toContain(`session ${id} by pid ${process.pid}`);
    expect(refused.stderr).not.toContain('no resumable session');
    expect(refused.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(readFileSync(join(ws.home, 'sessions', id, 'events.jsonl'), 'utf8')).toBe(before);
  });
});
