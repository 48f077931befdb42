import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareRows, visibleRows, type BrowserRow } from '../../source/state/browser-rows.js';
import { chainSpec } from '../helpers/chain-spec.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

function workspace(scripted?: string) {
  const cwd = tempDir();
  const home = join(cwd, 'home');
  writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps: 2, provider: 'scripted', scripted }).replace(/outputs:[\s\S]*$/, ''));
  return { cwd, home, env: { ACODE_HOME: home } };
}

const sessionIds = (home: string) => (existsSync(join(home, 'sessions')) ? readdirSync(join(home, 'sessions')) : []);

describe('session names', () => {
  it('a named session is found by its name wherever an id is accepted', async () => {
    const ws = workspace('  scripted:\n    faults:\n      - { step: 1, kind: crash }');
    expect((await runCli(['run', 'spec.yaml', '--name', 'nightly-report'], ws)).signal).toBe('SIGKILL');
    const [id] = sessionIds(ws.home);
    const show = await runCli(['sessions', 'show', 'nightly-report', '--json'], ws);
    expect(JSON.parse(show.stdout)).toMatchObject({ session_id: id, name: 'nightly-report' });
    const list = await runCli(['sessions', 'list', '--json'], ws);
    expect(JSON.parse(list.stdout)).toMatchObject([{ session_id: id, name: 'nightly-report' }]);
    const resumed = await runCli(['resume', 'nightly-report', '--json'], ws);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ session_id: id, status: 'completed', steps_skipped: 1 });
  });

  it('a fork takes its own name, never the name of its source', async () => {
    const ws = workspace();
    await runCli(['run', 'spec.yaml', '--name', 'source'], ws);
    const forked = await runCli(['fork', 'source', '--from-step', '2', '--name', 'rerun', '--json'], ws);
    expect(forked.code).toBe(0);
    const fork = JSON.parse(forked.stdout) as { session_id: string };
    expect(JSON.parse((await runCli(['sessions', 'show', 'rerun', '--json'], ws)).stdout)).toMatchObject({ session_id: fork.session_id, name: 'rerun' });
    const unnamed = await runCli(['fork', 'source', '--from-step', '2', '--json'], ws);
    expect(JSON.parse((await runCli(['sessions', 'show', (JSON.parse(unnamed.stdout) as { session_id: string }).session_id, '--json'], ws)).stdout)).not.toHaveProperty('name');
  });

  it('a name taken in the home is refused with exit 2, and nothing is created', async () => {
    const ws = workspace();
    expect((await runCli(['run', 'spec.yaml', '--name', 'daily'], ws)).code).toBe(0);
    const [first] = sessionIds(ws.home);
    const again = await runCli(['run', 'spec.yaml', '--name', 'daily'], ws);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`the name 'daily' is taken by session ${first}`);
    expect(sessionIds(ws.home)).toEqual([first]);
  });

  it('of two runs started at once with one name, exactly one gets it', async () => {
    const ws = workspace();
    const results = await Promise.all(Array.from({ length: 4 }, () => runCli(['run', 'spec.yaml', '--name', 'race'], ws)));
    expect(results.map((r) => r.code).sort()).toEqual([0, 2, 2, 2]);
    expect(sessionIds(ws.home)).toHaveLength(1);
  });

  it('an unknown name exits 1, as an unknown id does (ACODE-RESUME-005), and names the closest one', async () => {
    const ws = workspace();
    await runCli(['run', 'spec.yaml', '--name', 'weekly'], ws);
    const result = await runCli(['resume', 'weekyl'], ws);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`no session matches 'weekyl': no session has that name — did you mean 'weekly'?`);
  });

  it('deleting a session frees its name', async () => {
    const ws = workspace();
    await runCli(['run', 'spec.yaml', '--name', 'once'], ws);
    expect((await runCli(['sessions', 'delete', 'once', '--force'], ws)).code).toBe(0);
    expect((await runCli(['run', 'spec.yaml', '--name', 'once'], ws)).code).toBe(0);
  });

  it('refuses names that could be read as an id or hold other characters', async () => {
    const ws = workspace();
    for (const [name, message] of [['abcd12', 'looks like a session id'], ['my report', 'is not a session name'], ['../x', 'is not a session name']] as const) {
      const result = await runCli(['run', 'spec.yaml', '--name', name], ws);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(message);
    }
    expect(sessionIds(ws.home)).toEqual([]);
  });

  it('sessions without a name keep working beside named ones', async () => {
    const ws = workspace();
    await runCli(['run', 'spec.yaml'], ws);
    const [id] = sessionIds(ws.home);
    const show = await runCli(['sessions', 'show', id!.slice(0, 6), '--json'], ws);
    expect(JSON.parse(show.stdout)).not.toHaveProperty('name');
  });
});

describe('the browser search', () => {
  it('finds a session by its name', () => {
    const row = (id: string, name?: string): BrowserRow => ({
      session_id: id, ...(name ? { name } : {}), workflow_name: 'chain', status: 'completed', pattern_type: 'chain', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z',
      steps_done: 1, steps_total: 1, tokens: { input: 0, output: 0 }, cwd: '/w', variables: {}, stop_reason: null, last_response: '', damaged: null, interrupted: false, resumable: false,
    });
    const rows = prepareRows([row('1111111111111111'), row('2222222222222222', 'quarterly-audit')]);
    expect(visibleRows(rows, { scope: 'all', cwd: '/w', filter: 'all', query: 'quarterly' }).map((r) => r.session_id)).toEqual(['2222222222222222']);
  });
});

describe('name claims whose session never came to be or is gone', () => {
  // FIXED: source/store/session-names.ts: a claim whose session never came to be was judged live by its pid alone, so a reused pid
  // (or another host's claim) held the name forever and the error's advice ('acode sessions delete <name>') failed. A claim now
  // records its creator's host and process start time and when it was made; without its session folder it stands only while
  // that very process runs and for at most 60 s, and is otherwise taken over (under a guard, so no fresh claim is unlinked).
  it('a name claim left by a dead creator whose pid now belongs to another process does not hold the name forever', async () => {
    const ws = workspace();
    mkdirSync(join(ws.home, 'names'), { recursive: true });
    // The claim file as a creator killed between the claim and its folder leaves it; its pid is now this (unrelated) test process.
    writeFileSync(join(ws.home, 'names', 'ghost'), `0123456789abcdef ${process.pid}\n`);
    const deleted = await runCli(['sessions', 'delete', 'ghost', '--force'], ws);
    expect(deleted.stderr).not.toContain("did you mean 'ghost'");
    const run = await runCli(['run', 'spec.yaml', '--name', 'ghost'], ws);
    expect(run.stderr).not.toContain('taken by session 0123456789abcdef');
    expect(run.code).toBe(0);
  });

  // FIXED: source/store/session-names.ts (all): 'did you mean' offered every claim file, stale ones too, so a name whose session
  // is gone was suggested as the fix for itself; it now offers only names whose session exists.
  it('a name whose session is gone is not suggested for itself', async () => {
    const ws = workspace();
    expect((await runCli(['run', 'spec.yaml', '--name', 'gone'], ws)).code).toBe(0);
    const [id] = readdirSync(join(ws.home, 'sessions')).filter((entry) => !entry.startsWith('.'));
    rmSync(join(ws.home, 'sessions', id!), { recursive: true, force: true });
    const shown = await runCli(['sessions', 'show', 'gone'], ws);
    expect(shown.code).toBe(1); // ACODE-RESUME-005, as for an id that matches nothing
    expect(shown.stderr).not.toContain("did you mean 'gone'");
  });
});
