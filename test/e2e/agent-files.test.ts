import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { hashFolder } from '../helpers/folder-hash.js';
import { openAiServerPerTest, type OpenAiTestServer } from '../helpers/openai-server.js';
import { parseAllSessionFiles } from '../helpers/session-files.js';
import { tempDir } from '../helpers/temp-dir.js';

const fixture = openAiServerPerTest();
let server: OpenAiTestServer;
let baseUrl: string;
beforeEach(() => ({ server, baseUrl } = fixture.current()));

const newContent = '# Notes\n\nline one\nline two\nline three\n';

/** Step 1 writes notes.md (content above) through file_write; step 2 reads it back. */
function filesSpec(runtime: string, faults = ''): string {
  return `version: 0
name: files
runtime:
${runtime}
${faults}
tools:
  python: [strands_tools.file_read.file_read, strands_tools.file_write.file_write]
agents:
  writer: { prompt: "You write files." }
  reader: { prompt: "You read files." }
pattern:
  type: chain
  config:
    steps:
      - { agent: writer, input: "Step 0: write notes.md" }
      - { agent: reader, input: "Step 1: read notes.md" }
`;
}

const scripted = (faults = '') => filesSpec(`  provider: scripted
  scripted:
    responses:
      writer: { tool_calls: [ { name: file_write, args: { path: notes.md, content: ${JSON.stringify(newContent)} } } ], then: "wrote it" }
      reader: { tool_calls: [ { name: file_read, args: { path: notes.md } } ], then: "read it" }`, faults);

function workspace(spec: string) {
  const cwd = tempDir();
  const home = join(tempDir(), 'home');
  writeFileSync(join(cwd, 'spec.yaml'), spec);
  return { cwd, home, env: { ACODE_HOME: home } };
}

type Event = { type: string; [key: string]: unknown };
async function history(ws: ReturnType<typeof workspace>, id: string): Promise<Event[]> {
  return JSON.parse((await runCli(['sessions', 'history', id, '--json'], ws)).stdout) as Event[];
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the agent tool loop', () => {
  it('speaks OpenAI tool calling: tool_calls in, tool results back, then the answer', async () => {
    server.handler = (r) => {
      const last = r.body.messages.at(-1) as { role: string };
      if (r.step === 0 && last.role !== 'tool') {
        return { kind: 'tool_calls', calls: [{ id: 'call_a', name: 'file_write', args: { path: 'notes.md', content: newContent } }] };
      }
      if (r.step === 1 && last.role !== 'tool') return { kind: 'tool_calls', calls: [{ id: 'call_b', name: 'file_read', args: { path: 'notes.md' } }] };
      return { kind: 'answer', text: `done ${r.step}` };
    };
    const ws = workspace(filesSpec(`  provider: openai\n  model_id: m\n  host: ${baseUrl}`));
    const result = await runCli(['run', 'spec.yaml', '--json'], ws);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(ws.cwd, 'notes.md'), 'utf8')).toBe(newContent);

    expect(server.requests).toHaveLength(4);
    const first = server.requests[0]!.body as unknown as { tools: { type: string; function: { name: string } }[] };
    expect(first.tools.map((t) => t.function.name).sort()).toEqual(['file_read', 'file_write']);
    // The second call carries the assistant's tool call and the tool's result.
    expect(server.requests[1]!.body.messages.slice(-2)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'file_write', arguments: JSON.stringify({ path: 'notes.md', content: newContent }) } }] },
      { role: 'tool', tool_call_id: 'call_a', content: `wrote notes.md (${newContent.length} bytes)` },
    ]);
    expect(server.requests[3]!.body.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_b', content: newContent });

    const [record] = parseAllSessionFiles(ws.home);
    const types = (await history(ws, record!.session_id)).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['tool_called', 'file_write_intended', 'file_write_applied', 'tool_result', 'file_read']));
  });

  it('keeps tools inside the working directory', async () => {
    server.handler = (r) =>
      (r.body.messages.at(-1) as { role: string }).role === 'tool' ? { kind: 'answer', text: 'ok' } : { kind: 'tool_calls', calls: [{ id: 'x', name: 'file_read', args: { path: '../../etc/passwd' } }] };
    const ws = workspace(filesSpec(`  provider: openai\n  model_id: m\n  host: ${baseUrl}`));
    expect((await runCli(['run', 'spec.yaml'], ws)).code).toBe(0);
    expect((server.requests[1]!.body.messages.at(-1) as { content: string }).content).toMatch(/^error: path '\.\.\/\.\.\/etc\/passwd' is outside the working directory/);
  });
});

describe('a write step killed mid-write, then resumed', () => {
  const expected = async () => {
    const ws = workspace(scripted());
    writeFileSync(join(ws.cwd, 'notes.md'), 'old notes\n');
    expect((await runCli(['run', 'spec.yaml'], ws)).code).toBe(0);
    return readFileSync(join(ws.cwd, 'notes.md'));
  };

  it('rolls a torn write back from its snapshot, retries it, and ends byte-identical', async () => {
    const clean = await expected();
    const ws = workspace(scripted('    faults:\n      - { step: 0, kind: crash, during: file_write, after_bytes: 9 }'));
    writeFileSync(join(ws.cwd, 'notes.md'), 'old notes\n');
    expect((await runCli(['run', 'spec.yaml'], ws)).signal).toBe('SIGKILL');
    expect(readFileSync(join(ws.cwd, 'notes.md'), 'utf8')).toBe(newContent.slice(0, 9)); // torn

    const dry = await runCli(['resume', '--dry-run'], ws);
    expect(dry.stdout).toContain('write to notes.md (step 1): torn: rolled back from its snapshot, then retried');
    const resumed = await runCli(['resume'], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(readFileSync(join(ws.cwd, 'notes.md')).equals(clean)).toBe(true);
    const [record] = parseAllSessionFiles(ws.home);
    const events = await history(ws, record!.session_id);
    expect(events.find((e) => e.type === 'file_write_recovered')).toMatchObject({ outcome: 'rolled_back' });
  });

  it('has the file rolled back before the retry writes it: the retry finds the old content, not the torn one', async () => {
    // The retry rewrites the same bytes, so the final file cannot tell a rollback from none; the
    // retry's own write-ahead record can: it snapshots what the file held when the retry began.
    const ws = workspace(scripted('    faults:\n      - { step: 0, kind: crash, during: file_write, after_bytes: 9 }'));
    writeFileSync(join(ws.cwd, 'notes.md'), 'old notes\n');
    expect((await runCli(['run', 'spec.yaml'], ws)).signal).toBe('SIGKILL');
    expect(readFileSync(join(ws.cwd, 'notes.md'), 'utf8')).toBe(newContent.slice(0, 9)); // torn

    const resumed = await runCli(['resume'], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    const [record] = parseAllSessionFiles(ws.home);
    const events = await history(ws, record!.session_id);
    const recovered = events.findIndex((e) => e.type === 'file_write_recovered');
    expect(events[recovered]).toMatchObject({ outcome: 'rolled_back', hash: sha256('old notes\n') });
    const retried = events.slice(recovered).find((e) => e.type === 'file_write_intended');
    expect(retried).toMatchObject({ attempt: 2, before_hash: sha256('old notes\n') });
    expect(readFileSync(join(ws.home, 'sessions', record!.session_id, 'blobs', retried!.before_blob as string), 'utf8')).toBe('old notes\n');
    expect(readFileSync(join(ws.cwd, 'notes.md'), 'utf8')).toBe(newContent);
  });

  it('marks a write that was fully applied as done and never writes it again', async () => {
    const clean = await expected();
    const ws = workspace(scripted('    faults:\n      - { step: 0, kind: crash, during: file_write }'));
    expect((await runCli(['run', 'spec.yaml'], ws)).signal).toBe('SIGKILL');
    expect(readFileSync(join(ws.cwd, 'notes.md'), 'utf8')).toBe(newContent);
    const resumed = await runCli(['resume'], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(readFileSync(join(ws.cwd, 'notes.md')).equals(clean)).toBe(true);
    const [record] = parseAllSessionFiles(ws.home);
    const events = await history(ws, record!.session_id);
    expect(events.find((e) => e.type === 'file_write_recovered')).toMatchObject({ outcome: 'applied' });
    // The resumed step finished the model's round without running the write again, and told the
    // model what the uninterrupted write would have: that it wrote the file.
    expect(events.filter((e) => e.type === 'file_write_applied' && (e.path as string).endsWith('notes.md'))).toHaveLength(0);
    expect(events.filter((e) => e.type === 'file_write_intended' && (e.path as string).endsWith('notes.md'))).toHaveLength(1);
    expect(events.filter((e) => e.type === 'tool_called')).toHaveLength(2); // the write before the crash, step 2's read
    expect(events.find((e) => e.type === 'tool_result')).toMatchObject({ output: `wrote notes.md (${newContent.length} bytes)` });
  });

  it('leaves a torn write for the retry with --strategy retry', async () => {
    const ws = workspace(scripted('    faults:\n      - { step: 0, kind: crash, during: file_write, after_bytes: 4 }'));
    expect((await runCli(['run', 'spec.yaml'], ws)).signal).toBe('SIGKILL');
    expect((await runCli(['resume', '--strategy', 'retry'], ws)).code).toBe(0);
    const [record] = parseAllSessionFiles(ws.home);
    expect((await history(ws, record!.session_id)).find((e) => e.type === 'file_write_recovered')).toMatchObject({ outcome: 'kept' });
    expect(readFileSync(join(ws.cwd, 'notes.md'), 'utf8')).toBe(newContent);
  });
});

describe('files changed while the session was stopped (no terminal)', () => {
  async function stoppedAfterWrite() {
    const ws = workspace(scripted('    faults:\n      - { step: 1, kind: crash }'));
    expect((await runCli(['run', 'spec.yaml'], ws)).signal).toBe('SIGKILL');
    return ws;
  }

  it('lists the changed files and aborts with exit 17 by default, changing nothing', async () => {
    const ws = await stoppedAfterWrite();
    writeFileSync(join(ws.cwd, 'notes.md'), 'edited by hand\n');
    const before = hashFolder(ws.home);
    const result = await runCli(['resume'], ws);
    expect(result.code).toBe(17);
    expect(result.stderr).toMatch(/1 file changed since session [0-9a-f]+ stopped:\n {2}modified +notes\.md +\(15 B, changed \d+s ago; the session last wrote it at step 1\)/);
    expect(result.stderr).toContain('ACODE-RESUME-004');
    expect(hashFolder(ws.home)).toEqual(before);
  });

  it('reports a deleted file, and goes on with --yes', async () => {
    const ws = await stoppedAfterWrite();
    (await import('node:fs')).rmSync(join(ws.cwd, 'notes.md'));
    const dry = await runCli(['resume', '--dry-run'], ws);
    // Said as this resume would do it: without a terminal it stops (it had said "resume asks" whatever would happen).
    expect(dry.stdout).toMatch(/changed files: +1 \(resume stops before running: give --yes or --on-change continue to go on/);
    expect(dry.stdout).toMatch(/deleted +notes\.md/);
    // And exits as that resume would (17), so that `acode resume --dry-run && acode resume` stops here.
    expect(dry.code).toBe(17);
    expect(dry.stderr).toContain('ACODE-RESUME-004: dry run: the resume would stop here (exit 17): 1 file changed since session');
    const yes = await runCli(['resume', '--dry-run', '--yes'], ws);
    expect(yes.code, yes.stderr).toBe(0);
    expect(yes.stdout).toMatch(/changed files: +1 \(resume goes on past them\)/);
    expect(JSON.parse((await runCli(['resume', '--dry-run', '--json', '--on-change', 'abort'], ws)).stdout)).toMatchObject({ changed_files_action: 'abort' });
    const result = await runCli(['resume', '--yes'], ws);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('continuing with 1 changed file accepted');
    expect(existsSync(join(ws.cwd, 'notes.md'))).toBe(false); // step 2 only reads; its read fails and the agent answers anyway
  });

  // FIXED: source/engine/environment-check.ts: a folder where the session wrote its file (or its spec) was read as one: a stack trace (EISDIR); a named pipe would have hung the resume.
  it("reports a file replaced by a folder or a named pipe as deleted, and a folder in the spec's place as nothing", async () => {
    const fs = await import('node:fs');
    const ws = await stoppedAfterWrite();
    fs.rmSync(join(ws.cwd, 'notes.md'));
    fs.mkdirSync(join(ws.cwd, 'notes.md'));
    fs.renameSync(join(ws.cwd, 'spec.yaml'), join(ws.cwd, 'moved.yaml'));
    fs.mkdirSync(join(ws.cwd, 'spec.yaml'));
    const dry = await runCli(['resume', '--dry-run', '--yes'], ws);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/deleted +notes\.md/);
    expect(dry.stdout).not.toContain('spec.yaml');
    fs.rmSync(join(ws.cwd, 'notes.md'), { recursive: true });
    execFileSync('mkfifo', [join(ws.cwd, 'notes.md')]);
    const piped = await runCli(['resume', '--dry-run', '--yes'], ws);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toMatch(/deleted +notes\.md/);
    // A symbolic link loop in its place: no file there either.
    fs.rmSync(join(ws.cwd, 'notes.md'));
    fs.symlinkSync(join(ws.cwd, 'notes.md'), join(ws.cwd, 'notes.md'));
    const looped = await runCli(['resume', '--dry-run', '--yes'], ws);
    expect(looped.code, looped.stderr).toBe(0);
    expect(looped.stdout).toMatch(/deleted +notes\.md/);
  });

  it('skips the check with resume.validate_environment: false', async () => {
    const ws = await stoppedAfterWrite();
    writeFileSync(join(ws.cwd, 'notes.md'), 'edited\n');
    (await import('node:fs')).mkdirSync(join(ws.cwd, '.acode'));
    writeFileSync(join(ws.cwd, '.acode/config.yml'), 'resume:\n  validate_environment: false\n');
    expect((await runCli(['resume'], ws)).code).toBe(0);
  });

  it('stops at a spec file edited since the session started, as at any changed file (README, DESIGN 4.4); --yes runs the snapshot', async () => {
    const ws = await stoppedAfterWrite();
    writeFileSync(join(ws.cwd, 'spec.yaml'), `${readFileSync(join(ws.cwd, 'spec.yaml'), 'utf8')}# edited\n`);
    // It was a note, and the resume ran the old spec: a person who fixed a prompt got the old one.
    const dry = await runCli(['resume', '--dry-run'], ws);
    expect(dry.stdout).toMatch(/changed files: +1 \(resume stops before running/);
    expect(dry.stdout).toMatch(/modified +spec\.yaml .*the workflow spec; the session keeps running its snapshot/);
    const before = hashFolder(ws.home);
    const stopped = await runCli(['resume'], ws);
    expect(stopped.code).toBe(17);
    expect(stopped.stderr).toContain('ACODE-RESUME-004');
    expect(hashFolder(ws.home)).toEqual(before);
    const result = await runCli(['resume', '--yes'], ws);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/modified +spec\.yaml/);
  });
});
