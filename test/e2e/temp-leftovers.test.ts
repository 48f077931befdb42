import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { hashFolder } from '../helpers/folder-hash.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Three steps, each writing fk.txt through file_write; `faults` may kill one mid-write. */
function spec(faults: string): string {
  return `version: 0
name: temp-leftovers
runtime:
  provider: scripted
  scripted:
    responses:
      worker: { tool_calls: [ { name: file_write, args: { path: "sub/f{{ n }}.txt", content: "file {{ n }}", create_dirs: true } } ], then: "step {{ n }} done" }
${faults}
agents:
  worker: { prompt: "You write files.", tools: [file_write] }
pattern:
  type: chain
  config:
    steps:
      - { agent: worker, input: "Step 0", vars: { n: 0 } }
      - { agent: worker, input: "Step 1", vars: { n: 1 } }
      - { agent: worker, input: "Step 2", vars: { n: 2 } }
`;
}

function workspace(faults = '') {
  const root = tempDir();
  const cwd = join(root, 'work');
  const home = join(root, 'home');
  mkdirSync(cwd);
  writeFileSync(join(root, 'spec.yaml'), spec(faults));
  return { cwd, home, spec: join(root, 'spec.yaml'), env: { ACODE_HOME: home } };
}

/** Every path under `dir` (relative) whose name ends in .tmp. */
function tempFiles(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.tmp')) found.push(relative(dir, path));
    }
  };
  walk(dir);
  return found.sort();
}

/** A pid no process has: one that just exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
  return Number(child.stdout.trim());
}

describe('a run killed while its temp file waits to be renamed into place', () => {
  it("leaves a temp file named for its session, which resume removes, and nobody else's", async () => {
    const ws = workspace('    faults:\n      - { step: 1, kind: crash, during: file_write_rename }');
    const killed = await runCli(['run', ws.spec], ws);
    expect(killed.signal).toBe('SIGKILL');
    const id = readdirSync(join(ws.home, 'sessions'))[0]!;
    const events = readFileSync(join(ws.home, 'sessions', id, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string });
    expect(events.at(-1)).toMatchObject({ type: 'file_write_intended' });
    const [left] = tempFiles(ws.cwd);
    expect(left).toMatch(new RegExp(`^sub/\\.f1\\.txt\\.acode-${id}\\.\\d+\\.\\d+\\.tmp$`));

    // Look-alikes that are not this session's: another session's, a user's own, an older acode's
    // in the user's folder; a live process's index temp file in the home.
    const dead = deadPid();
    const others = [
      join(ws.cwd, 'sub', `.f1.txt.acode-0123456789abcdef.${dead}.1.tmp`),
      join(ws.cwd, 'sub', '.x.tmp'),
      join(ws.cwd, `.notes.md.${dead}.7.tmp`),
      join(ws.home, `.index.json.acode.${process.pid}.1.tmp`),
    ];
    // Leftovers that are the session's or a dead writer's, in ACODE_HOME.
    const leftovers = [
      join(ws.home, 'sessions', id, 'blobs', `.${'a'.repeat(64)}.acode-${id}.${dead}.3.tmp`),
      join(ws.home, 'sessions', id, `.session.json.${dead}.4.tmp`),
      join(ws.home, `.index.json.acode.${dead}.5.tmp`),
      join(ws.home, `.index-head.json.${dead}.6.tmp`),
    ];
    for (const path of [...others, ...leftovers]) writeFileSync(path, 'x');

    const dry = await runCli(['resume', '--dry-run'], ws);
    expect(dry.code, dry.stderr).toBe(0);
    expect(tempFiles(ws.cwd)).toContain(left);
    for (const path of leftovers) expect(statSync(path).isFile()).toBe(true);

    const resumed = await runCli(['resume'], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect([...tempFiles(ws.cwd), ...tempFiles(ws.home)].filter((name) => name.includes(id) || leftovers.some((l) => l.endsWith(name)))).toEqual([]);
    for (const path of others) expect(readFileSync(path, 'utf8')).toBe('x');
    expect(resumed.stderr).toContain(`removed 5 temp files the stopped run left (${left}`);

    // And the work itself ends as an uninterrupted run's.
    const clean = workspace();
    expect((await runCli(['run', clean.spec], clean)).code).toBe(0);
    expect(hashFolder(ws.cwd)).toEqual({ ...hashFolder(clean.cwd), 'sub/.x.tmp': expect.any(String), [`sub/.f1.txt.acode-0123456789abcdef.${dead}.1.tmp`]: expect.any(String), [`.notes.md.${dead}.7.tmp`]: expect.any(String) });
  });
});
