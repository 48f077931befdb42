import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claimResume, prepareResume } from '../../source/session/prepare-resume.js';
import { LocalSessionRepository } from '../../source/store/local-repository.js';
import { chainSpec } from '../helpers/chain-spec.js';
import { runCli, startCli } from '../helpers/cli.js';
import { parseAllSessionFiles } from '../helpers/session-files.js';
import { tempDir } from '../helpers/temp-dir.js';

function workspace(spec: string) {
  const cwd = tempDir();
  const home = join(tempDir(), 'home');
  writeFileSync(join(cwd, 'spec.yaml'), spec);
  return { cwd, home, env: { ACODE_HOME: home } };
}

async function crashed(spec: string) {
  const ws = workspace(spec);
  expect((await runCli(['run', 'spec.yaml'], ws)).signal).toBe('SIGKILL');
  const [record] = parseAllSessionFiles(ws.home);
  return { ws, id: record!.session_id, log: join(ws.home, 'sessions', record!.session_id, 'events.jsonl') };
}

const crashAt1 = chainSpec({ steps: 3, provider: 'scripted', scripted: '  scripted:\n    faults:\n      - { step: 1, kind: crash }' });

function lastEvent(log: string): { event_id: number; ts: string; epoch?: number } {
  return JSON.parse(readFileSync(log, 'utf8').trim().split('\n').at(-1)!) as { event_id: number; ts: string; epoch?: number };
}

describe('resume safety (review fixes)', () => {
  it('refuses a session whose log says it completed even if its checkpoint still says running', async () => {
    const { ws, id, log } = await crashed(crashAt1);
    const last = lastEvent(log);
    // Written by the session's own (lock epoch's) process, just before it was killed.
    appendFileSync(log, `${JSON.stringify({ type: 'session_completed', tokens: { input: 0, output: 0 }, event_id: last.event_id + 1, ts: last.ts, epoch: last.epoch })}\n`);
    const result = await runCli(['resume', id], ws);
    expect(result.code).toBe(15);
    expect(result.stderr).toContain('ACODE-RESUME-002');
  });

  it('refuses to go on when another process ran the session while the resume was being prepared, and lets its lock go', async () => {
    const { ws, id, log } = await crashed(crashAt1);
    const repository = new LocalSessionRepository(ws.home);
    const candidate = await prepareResume(repository, { id, cwd: ws.cwd, env: ws.env });
    const last = lastEvent(log);
    appendFileSync(log, `${JSON.stringify({ type: 'step_skipped', step: 0, agent: 'worker', event_id: last.event_id + 1, ts: last.ts })}\n`);
    await expect(claimResume(repository, candidate, { strategy: 'rollback', env: ws.env })).rejects.toThrowError(expect.objectContaining({ code: 'ACODE-RESUME-003', exitCode: 16 }));
    expect(existsSync(join(ws.home, 'sessions', id, 'lock'))).toBe(false);
  });

  it('never rolls back a pending write that someone edited: it is a changed file', async () => {
    const content = 'line one\nline two\n';
    const spec = `version: 0
name: edited
runtime:
  provider: scripted
  scripted:
    responses:
      writer: { tool_calls: [ { name: file_write, args: { path: notes.md, content: ${JSON.stringify(content)} } } ], then: "ok" }
    faults:
      - { step: 0, kind: crash, during: file_write, after_bytes: 4 }
tools: { python: [file_write] }
agents:
  writer: { prompt: "You write." }
pattern: { type: chain, config: { steps: [ { agent: writer, input: "write" } ] } }
`;
    const { ws } = await crashed(spec);
    writeFileSync(join(ws.cwd, 'notes.md'), 'a person rewrote this\n');
    const refused = await runCli(['resume'], ws);
    expect(refused.code).toBe(17);
    expect(refused.stderr).toMatch(/created +notes\.md/); // it did not exist before the session's write
    expect(readFileSync(join(ws.cwd, 'notes.md'), 'utf8')).toBe('a person rewrote this\n');
    const dry = await runCli(['resume', '--dry-run'], ws);
    expect(dry.stdout).toContain('changed by someone else since: kept as it is');
  });

  it('refuses to delete a session a live process is running', async () => {
    const ws = workspace(chainSpec({ steps: 2, provider: 'scripted', scripted: '  scripted:\n    latency_ms: 60000' }));
    const run = startCli(['run', 'spec.yaml'], ws);
    await new Promise<void>((resolve) => run.child.stderr!.on('data', (chunk: Buffer) => chunk.toString().includes('▶ step 1/2') && resolve()));
    const [record] = parseAllSessionFiles(ws.home);
    const refused = await runCli(['sessions', 'delete', record!.session_id], ws);
    expect(refused.code).toBe(16);
    expect(refused.stderr).toMatch(/is running in pid \d+/);
    run.child.kill('SIGKILL');
    await run.done;
  });
});
