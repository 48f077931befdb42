import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryBlobStore } from '../../source/engine/blob-store.js';
import type { EngineEventBody } from '../../source/engine/events.js';
import { agentTools } from '../../source/engine/tools/agent-tools.js';
import { confinedPath } from '../../source/engine/tools/confined-path.js';
import { runTool } from '../../source/engine/tools/tool-runner.js';
import { loadSpecText } from '../../source/spec/load-spec.js';
import { tempDir } from '../helpers/temp-dir.js';

function context(cwd: string) {
  const events: EngineEventBody[] = [];
  return { events, ctx: { step: '0', attempt: 1, cwd, extraRoots: [], blobs: new MemoryBlobStore(), emit: (e: EngineEventBody) => events.push(e) } };
}

describe('built-in tools', () => {
  it('reads head and tail lines and greps with context', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'a.txt'), 'one\ntwo\nthree\nfour\nfive\n');
    const { ctx, events } = context(cwd);
    expect(await runTool({ id: '1', name: 'head', args: { path: 'a.txt', lines: 2 } }, ctx)).toEqual({ ok: true, output: 'one\ntwo' });
    expect(await runTool({ id: '2', name: 'tail', args: { path: 'a.txt', lines: 2 } }, ctx)).toEqual({ ok: true, output: 'four\nfive' });
    expect(await runTool({ id: '3', name: 'grep', args: { pattern: 'THREE', path: 'a.txt', ignore_case: true, context_lines: 1 } }, ctx)).toEqual({ ok: true, output: 'a.txt:2- two\na.txt:3: three\na.txt:4- four' });
    expect(events.filter((e) => e.type === 'file_read')).toHaveLength(3);
  });

  it('refuses paths outside the working directory, including through a symlink', async () => {
    const cwd = tempDir();
    const outside = tempDir();
    writeFileSync(join(outside, 'secret'), 'x');
    symlinkSync(outside, join(cwd, 'link'));
    expect(() => confinedPath(cwd, '../x')).toThrowError(/outside the working directory/);
    expect(() => confinedPath(cwd, join(outside, 'secret'))).toThrowError(/outside/);
    expect(() => confinedPath(cwd, 'link/secret')).toThrowError(/outside/);
    expect(confinedPath(cwd, join(outside, 'secret'), [outside])).toBe(join(outside, 'secret'));
    const { ctx } = context(cwd);
    expect(await runTool({ id: '1', name: 'file_read', args: { path: 'link/secret' } }, ctx)).toMatchObject({ ok: false, output: expect.stringMatching(/^error: path/) });
  });

  it('snapshots the prior content before a write, and skips a write that changes nothing', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'n.md'), 'old');
    const { ctx, events } = context(cwd);
    await runTool({ id: 'w1', name: 'file_write', args: { path: 'n.md', content: 'new' } }, ctx);
    const intended = events.find((e) => e.type === 'file_write_intended');
    expect(intended).toMatchObject({ before_hash: expect.any(String), after_hash: expect.any(String), bytes: 3 });
    expect(ctx.blobs.get((intended as { before_blob: string }).before_blob).toString()).toBe('old');
    expect(events.map((e) => e.type)).toEqual(['file_write_intended', 'file_write_applied']);
    expect(await runTool({ id: 'w2', name: 'file_write', args: { path: 'n.md', content: 'new' } }, ctx)).toMatchObject({ output: expect.stringContaining('not written again') });
    expect(events.at(-1)).toMatchObject({ type: 'file_write_applied', already: true });
    expect(readFileSync(join(cwd, 'n.md'), 'utf8')).toBe('new');
  });

  it('needs create_dirs for a missing folder, as strands-cli does', async () => {
    const cwd = tempDir();
    const { ctx } = context(cwd);
    expect(await runTool({ id: '1', name: 'file_write', args: { path: 'a/b.md', content: 'x' } }, ctx)).toMatchObject({ ok: false, output: expect.stringContaining('create_dirs') });
    expect(await runTool({ id: '2', name: 'file_write', args: { path: 'a/b.md', content: 'x', create_dirs: true } }, ctx)).toMatchObject({ ok: true });
  });

  it("gives an agent its own tool list, else every tool the spec declares", () => {
    const { spec } = loadSpecText(
      'version: 0\nname: t\nruntime: { provider: scripted }\ntools: { python: [strands_tools.file_read, grep] }\nagents:\n  a: { prompt: p }\n  b: { prompt: p, tools: [file_write] }\n  c: { prompt: p, tools: [] }\npattern: { type: chain, config: { steps: [ { agent: a, input: x } ] } }\n',
      'spec.yaml',
    );
    expect(agentTools(spec, 'a').map((t) => t.name)).toEqual(['file_read', 'grep']);
    expect(agentTools(spec, 'b').map((t) => t.name)).toEqual(['file_write']);
    expect(agentTools(spec, 'c')).toEqual([]);
  });
});

describe('file_write on existing files', () => {
  it('keeps the permissions of the file it replaces and writes through a symlink', async () => {
    const { chmodSync, statSync: stat, lstatSync } = await import('node:fs');
    const cwd = tempDir();
    writeFileSync(join(cwd, 'run.sh'), 'echo old\n');
    chmodSync(join(cwd, 'run.sh'), 0o755);
    symlinkSync(join(cwd, 'run.sh'), join(cwd, 'link.sh'));
    const { ctx } = context(cwd);
    await runTool({ id: '1', name: 'file_write', args: { path: 'link.sh', content: 'echo new\n' } }, ctx);
    expect(lstatSync(join(cwd, 'link.sh')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(cwd, 'run.sh'), 'utf8')).toBe('echo new\n');
    expect(stat(join(cwd, 'run.sh')).mode & 0o777).toBe(0o755);
  });
});
