import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliPath, runCli } from '../helpers/cli.js';
import { hashFolder } from '../helpers/folder-hash.js';
import { tempDir } from '../helpers/temp-dir.js';
import { TmuxTerminal } from '../helpers/tmux.js';

let terminal: TmuxTerminal | undefined;
afterEach(() => terminal?.close());

const spec = `version: 0
name: tmux-files
runtime:
  provider: scripted
  scripted:
    responses:
      writer: { tool_calls: [ { name: file_write, args: { path: notes.md, content: "first line\\nsecond line\\n" } } ], then: "wrote" }
    faults:
      - { step: 1, kind: crash }
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

describe('the changed-file prompt in a real terminal', () => {
  it('shows the edited file, its diff on V, and on A exits 17 leaving the session untouched', async () => {
    const cwd = tempDir();
    const home = join(tempDir(), 'home');
    writeFileSync(join(cwd, 'spec.yaml'), spec);
    expect((await runCli(['run', 'spec.yaml'], { cwd, env: { ACODE_HOME: home } })).signal).toBe('SIGKILL');
    writeFileSync(join(cwd, 'notes.md'), `${readFileSync(join(cwd, 'notes.md'), 'utf8')}a line added by hand\n`);
    const before = hashFolder(home);

    terminal = new TmuxTerminal(cwd, { ACODE_HOME: home, PATH: process.env.PATH ?? '' });
    terminal.run(`node ${cliPath} resume; echo "EXIT=$?"`);
    let screen = await terminal.waitFor((s) => s.includes('[C]ontinue'));
    expect(screen).toMatch(/1 file changed since session [0-9a-f]+ stopped/);
    expect(screen).toMatch(/❯ modified notes\.md .*the session last wrote it at step 1/);

    terminal.press('v');
    screen = await terminal.waitFor((s) => s.includes('session’s copy vs now'));
    expect(screen).toContain('--- notes.md (session)');
    expect(screen).toContain('+++ notes.md (now)');
    expect(screen).toContain('+a line added by hand');

    terminal.press('Escape');
    await terminal.waitFor((s) => s.includes('[C]ontinue'));
    terminal.press('a');
    screen = await terminal.waitFor((s) => /EXIT=\d+/.test(s));
    expect(screen).toContain('EXIT=17');
    expect(screen).toContain('ACODE-RESUME-004');
    expect(hashFolder(home)).toEqual(before);
  });

  it('on C goes on, saying once that the changed file was accepted', async () => {
    const cwd = tempDir();
    const home = join(tempDir(), 'home');
    writeFileSync(join(cwd, 'spec.yaml'), spec);
    expect((await runCli(['run', 'spec.yaml'], { cwd, env: { ACODE_HOME: home } })).signal).toBe('SIGKILL');
    writeFileSync(join(cwd, 'notes.md'), `${readFileSync(join(cwd, 'notes.md'), 'utf8')}a line added by hand\n`);

    terminal = new TmuxTerminal(cwd, { ACODE_HOME: home, PATH: process.env.PATH ?? '' });
    terminal.run(`node ${cliPath} resume; echo "EXIT=$?"`);
    await terminal.waitFor((s) => s.includes('[C]ontinue'));
    terminal.press('c');
    const screen = await terminal.waitFor((s) => /EXIT=\d+/.test(s));
    expect(screen).toContain('→ continuing: 1 changed file accepted');
    expect(screen.match(/changed file accepted/g)).toHaveLength(1);
  });
});
