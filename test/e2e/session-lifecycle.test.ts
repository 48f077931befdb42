import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { parseAllSessionFiles } from '../helpers/session-files.js';
import { tempDir } from '../helpers/temp-dir.js';

const content = '# Notes\n\nline one\nline two\nline three\n';

/** Step 1 writes notes.md through file_write and is killed after `tornAt` bytes; step 2 reads it. */
const spec = (tornAt: number) => `version: 0
name: torn
runtime:
  provider: scripted
  scripted:
    responses:
      writer: { tool_calls: [ { name: file_write, args: { path: notes.md, content: ${JSON.stringify(content)} } } ], then: "wrote it" }
      reader: { tool_calls: [ { name: file_read, args: { path: notes.md } } ], then: "read it" }
    faults:
      - { step: 0, kind: crash, during: file_write, after_bytes: ${tornAt} }
tools:
  python: [strands_tools.file_read.file_read, strands_tools.file_write.file_write]
agents:
  writer: { prompt: "You write files." }
  reader: { prompt: "You read files." }
pattern:
  type: chain
  config:
    steps:
      - { agent: writer, input: "write notes.md" }
      - { agent: reader, input: "read notes.md" }
`;

/** A session killed in the middle of a file write, with `config` as the project's .acode/config.yml. */
async function tornWrite(config?: string) {
  const cwd = tempDir();
  const home = join(tempDir(), 'home');
  const ws = { cwd, home, env: { ACODE_HOME: home } };
  writeFileSync(join(cwd, 'spec.yaml'), spec(6));
  writeFileSync(join(cwd, 'notes.md'), 'old notes\n');
  if (config) {
    mkdirSync(join(cwd, '.acode'));
    writeFileSync(join(cwd, '.acode', 'config.yml'), config);
  }
  expect((await runCli(['run', 'spec.yaml'], ws)).signal).toBe('SIGKILL');
  expect(readFileSync(join(cwd, 'notes.md'), 'utf8')).toBe(content.slice(0, 6));
  const [record] = parseAllSessionFiles(home);
  return { ws, id: record!.session_id };
}

async function recoveryOutcome(ws: { cwd: string; env: Record<string, string> }, id: string): Promise<unknown> {
  const events = JSON.parse((await runCli(['sessions', 'history', id, '--json'], ws)).stdout) as { type: string; outcome?: string }[];
  return events.find((e) => e.type === 'file_write_recovered')?.outcome;
}

describe('one in-progress strategy for --dry-run and the resume itself', () => {
  it('reports the strategy resume.in_progress_strategy sets, and the resume then uses it', async () => {
    const { ws, id } = await tornWrite('resume:\n  in_progress_strategy: retry\n');
    const dry = await runCli(['resume', '--dry-run'], ws);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('write to notes.md (step 1): torn: left as is for the retry to overwrite');
    const json = JSON.parse((await runCli(['resume', '--dry-run', '--json'], ws)).stdout) as { pending_writes: { action: string }[] };
    expect(json.pending_writes.map((w) => w.action)).toEqual(['torn: left as is for the retry to overwrite']);

    const resumed = await runCli(['resume'], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('write to notes.md (step 1): torn: left as is for the retry to overwrite');
    expect(await recoveryOutcome(ws, id)).toBe('kept');
  });

  it('lets --strategy override the config in both', async () => {
    const { ws, id } = await tornWrite('resume:\n  in_progress_strategy: retry\n');
    expect((await runCli(['resume', '--dry-run', '--strategy', 'rollback'], ws)).stdout).toContain('torn: rolled back from its snapshot, then retried');
    expect((await runCli(['resume', '--strategy', 'rollback'], ws)).code).toBe(0);
    expect(await recoveryOutcome(ws, id)).toBe('rolled_back');
  });

  it('rolls back by default (no flag, no config) in both', async () => {
    const { ws, id } = await tornWrite();
    expect((await runCli(['resume', '--dry-run'], ws)).stdout).toContain('torn: rolled back from its snapshot, then retried');
    expect((await runCli(['resume'], ws)).code).toBe(0);
    expect(await recoveryOutcome(ws, id)).toBe('rolled_back');
  });
});

describe('an ACODE_HOME that is a file', () => {
  it('is said by every command that opens the sessions, before any config under it is read', async () => {
    const cwd = tempDir();
    const home = join(cwd, 'home-file');
    writeFileSync(home, 'not a folder\n');
    writeFileSync(join(cwd, 'spec.yaml'), spec(6));
    for (const args of [['resume'], ['resume', 'abcd'], ['fork', 'abcd'], ['sessions', 'list'], ['sessions', 'show', 'abcd'], ['run', 'spec.yaml']]) {
      const result = await runCli(args, { cwd, env: { ACODE_HOME: home } });
      expect(result.stderr, args.join(' ')).toContain(`${home} is a file, but acode keeps its sessions in a folder there`);
      expect(result.code).toBe(1);
    }
    expect(readFileSync(home, 'utf8')).toBe('not a folder\n');
  });
});
