import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliPath, runCli } from '../helpers/cli.js';
import { hashFolder } from '../helpers/folder-hash.js';
import { parseAllSessionFiles } from '../helpers/session-files.js';
import { tempDir } from '../helpers/temp-dir.js';
import { TmuxTerminal } from '../helpers/tmux.js';

let terminal: TmuxTerminal | undefined;
afterEach(() => terminal?.close());

const content = 'first line\nsecond line\n';

/** Step 1's file_write dies after 9 bytes, as a writer killed mid-write. */
const spec = `version: 0
name: tmux-torn
runtime:
  provider: scripted
  scripted:
    responses:
      writer: { tool_calls: [ { name: file_write, args: { path: notes.md, content: ${JSON.stringify(content)} } } ], then: "wrote" }
    faults:
      - { step: 0, kind: crash, during: file_write, after_bytes: 9 }
tools:
  python: [file_write]
agents:
  writer: { prompt: "You write." }
  closer: { prompt: "You close." }
pattern:
  type: chain
  config:
    steps:
      - { agent: writer, input: "write notes" }
      - { agent: closer, input: "close" }
`;

async function tornSession() {
  const cwd = tempDir();
  const home = join(tempDir(), 'home');
  writeFileSync(join(cwd, 'spec.yaml'), spec);
  writeFileSync(join(cwd, 'notes.md'), 'old notes\n');
  expect((await runCli(['run', 'spec.yaml'], { cwd, env: { ACODE_HOME: home } })).signal).toBe('SIGKILL');
  expect(readFileSync(join(cwd, 'notes.md'), 'utf8')).toBe(content.slice(0, 9));
  return { cwd, home };
}

const choices = (s: string) => s.includes('Abort — the session stays exactly as it was');

describe('the torn-write question (resume --strategy prompt) in a real terminal', () => {
  it('shows the torn file on "view", returns to the choices, and on abort exits 17 leaving the session untouched', async () => {
    const { cwd, home } = await tornSession();
    const before = hashFolder(home);
    terminal = new TmuxTerminal(cwd, { ACODE_HOME: home, PATH: process.env.PATH ?? '' });
    terminal.run(`node ${cliPath} resume --strategy prompt; echo "EXIT=$?"`);
    let screen = await terminal.waitFor(choices);
    expect(screen).toMatch(/1 write was torn when session [0-9a-f]+ stopped/);
    expect(screen).toContain('notes.md torn by step 1');
    expect(screen).toMatch(/❯ Roll back and retry/);

    terminal.press('Down');
    await terminal.waitFor((s) => /❯ Retry over it/.test(s));
    terminal.press('Down');
    await terminal.waitFor((s) => /❯ View the torn file/.test(s));
    terminal.press('Enter');
    screen = await terminal.waitFor((s) => s.includes('+++ notes.md (torn)'));
    expect(screen).toContain('--- notes.md (snapshot)');
    expect(screen).toContain('-old notes');
    expect(screen).toContain('+first lin');

    terminal.press('Escape');
    screen = await terminal.waitFor(choices);
    expect(screen).toMatch(/❯ View the torn file/); // the choice stays where it was
    terminal.press('Down');
    await terminal.waitFor((s) => /❯ Abort/.test(s));
    terminal.press('Enter');
    screen = await terminal.waitFor((s) => /EXIT=\d+/.test(s));
    expect(screen).toContain('→ aborted: the session is unchanged');
    expect(screen).toContain('EXIT=17');
    expect(screen).toContain('ACODE-RESUME-004');
    expect(hashFolder(home)).toEqual(before);
    expect(readFileSync(join(cwd, 'notes.md'), 'utf8')).toBe(content.slice(0, 9));
  });

  it('"retry over it" keeps the torn file for the step to overwrite, and the session completes', async () => {
    const { cwd, home } = await tornSession();
    terminal = new TmuxTerminal(cwd, { ACODE_HOME: home, PATH: process.env.PATH ?? '' });
    terminal.run(`node ${cliPath} resume --strategy prompt; echo "EXIT=$?"`);
    await terminal.waitFor(choices);
    terminal.press('Down');
    await terminal.waitFor((s) => /❯ Retry over it/.test(s));
    terminal.press('Enter');
    const screen = await terminal.waitFor((s) => /EXIT=\d+/.test(s));
    expect(screen).toContain('EXIT=0');
    const id = parseAllSessionFiles(home)[0]!.session_id;
    const history = JSON.parse((await runCli(['sessions', 'history', id, '--json'], { cwd, env: { ACODE_HOME: home } })).stdout) as { type: string; outcome?: string }[];
    expect(history.find((e) => e.type === 'file_write_recovered')).toMatchObject({ outcome: 'kept' });
    expect(readFileSync(join(cwd, 'notes.md'), 'utf8')).toBe(content);
  });

  it('without a terminal, rolls the torn write back and says why it did not ask', async () => {
    const { cwd, home } = await tornSession();
    const resumed = await runCli(['resume', '--strategy', 'prompt'], { cwd, env: { ACODE_HOME: home } });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain('acode: a write was torn when the session stopped (notes.md); rolled back: resume.in_progress_strategy is prompt, but there is no terminal to ask (--strategy retry keeps it)');
    expect(readFileSync(join(cwd, 'notes.md'), 'utf8')).toBe(content);
  });
});
