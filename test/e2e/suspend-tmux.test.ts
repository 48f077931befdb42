import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { cliPath } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { TmuxTerminal } from '../helpers/tmux.js';

/**
 * Ctrl+Z in a terminal program suspends it to the shell (job control), and `fg` brings it back as
 * it was. Raw mode, which every acode screen reads its keys in, turns Ctrl+Z into a key: the screens
 * must do it themselves.
 */

const demo = fileURLToPath(new URL('../../examples/chain-3-step-resume-demo.yaml', import.meta.url));
let terminal: TmuxTerminal | undefined;
afterEach(() => terminal?.close());

/** The process state of `pid` as ps shows it (T: stopped). */
const stateOf = (pid: string) => execFileSync('ps', ['-o', 'stat=', '-p', pid], { encoding: 'utf8' }).trim();

describe('Ctrl+Z', () => {
  // FIXED: source/ui/screen-render.tsx: Ctrl+Z did nothing in the run view, the prompts and the browser.
  it('suspends a run to the shell; fg redraws the run view, which goes on and still pauses on Ctrl+C', async () => {
    const cwd = tempDir();
    const home = join(cwd, 'home');
    terminal = new TmuxTerminal(cwd, { ACODE_HOME: home, PATH: process.env.PATH ?? '' }, { columns: 110, rows: 30 });
    // Under sh, as under npx: Ctrl+Z stops the whole job, the program and what started it.
    terminal.run(`sh -c 'node ${cliPath} run ${demo} --var topic=suspend; echo "EXIT=$?"'`);
    const running = await terminal.waitFor((s) => /pid \d+/.test(s) && /1 researcher/.test(s));
    const pid = /pid (\d+)/.exec(running)![1]!;
    terminal.press('C-z');
    const stopped = await terminal.waitFor((s) => /Stopped/.test(s));
    expect(stopped).toMatch(/\[1\]\+\s+Stopped\s+sh -c/);
    expect(stopped).not.toMatch(/^EXIT=\d+/m);
    expect(stateOf(pid)).toMatch(/^T/);
    // The terminal is the shell's again: what is typed echoes and runs.
    terminal.run('clear; echo "SHELL=ok"; fg');
    const back = await terminal.waitFor((s) => /SHELL=ok/.test(s) && /remaining/.test(s));
    // The whole frame drawn again below the shell's lines: the steps, the summary and the keys.
    expect(back).toMatch(/SHELL=ok[\s\S]*(researcher|analyst)[\s\S]*remaining[\s\S]*Ctrl\+C pause/);
    expect(stateOf(pid)).not.toMatch(/^T/);
    // Raw mode is back: Ctrl+C is the view's pause, not the terminal's interrupt.
    terminal.press('C-c');
    const paused = await terminal.waitFor((s) => /^EXIT=\d+/m.test(s), 15_000);
    expect(paused).toContain('paused');
    expect(paused).toMatch(/Resume with: acode resume [0-9a-f]{16}/);
    expect(paused).toContain('EXIT=130');
  });

  it('suspends the browser to the main screen; fg brings it back, and q quits', async () => {
    const cwd = tempDir();
    const home = join(cwd, 'home');
    terminal = new TmuxTerminal(cwd, { ACODE_HOME: home, PATH: process.env.PATH ?? '' }, { columns: 110, rows: 30 });
    terminal.run(`node ${cliPath} run ${demo} --var topic=browse >/dev/null; echo "RUN=$?"`);
    await terminal.waitFor((s) => /RUN=0/.test(s), 30_000);
    expect(existsSync(join(cwd, 'artifacts', 'browse-report.md'))).toBe(true);
    terminal.run(`clear; sh -c 'node ${cliPath}; echo "EXIT=$?"'`);
    await terminal.waitFor((s) => /chain-resume-demo/.test(s) && / 1 session · /.test(s));
    expect(terminal.cursorVisible()).toBe(false);
    terminal.press('C-z');
    const stopped = await terminal.waitFor((s) => /Stopped/.test(s));
    // The main screen, as it was before the browser opened: not the browser's rows.
    expect(stopped).not.toContain('WORKFLOW');
    expect(terminal.cursorVisible()).toBe(true);
    // Narrowed while suspended: the shell's job got the SIGWINCH, not the browser.
    terminal.resize(70, 20);
    terminal.run('fg');
    // FIXED: source/ui/screen-render.tsx: the browser kept the old width after fg, its rows wrapped past the terminal's height.
    const narrow = await terminal.waitFor((s) => /WORKFLOW/.test(s) && /chain-resume-demo/.test(s) && /Tab filter ·…$/m.test(s));
    expect(narrow.split('\n').find((line) => line.includes('WORKFLOW'))).toMatch(/^ *ID +WORKFLOW/);
    // FIXED: source/ui/screen-render.tsx: the browser's full-screen frame is no inline one, which hides the cursor as it draws.
    expect(terminal.cursorVisible()).toBe(false);
    terminal.press('j');
    await terminal.waitFor((s) => /WORKFLOW/.test(s));
    expect(terminal.cursorVisible()).toBe(false);
    terminal.press('q');
    const closed = await terminal.waitFor((s) => /^EXIT=\d+/m.test(s));
    expect(closed).toContain('EXIT=0');
    expect(closed).not.toContain('WORKFLOW');
    expect(readFileSync(join(cwd, 'artifacts', 'browse-report.md'), 'utf8').length).toBeGreaterThan(0);
  });
});
