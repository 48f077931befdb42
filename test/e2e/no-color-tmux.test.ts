import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliPath } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { TmuxTerminal } from '../helpers/tmux.js';

let terminal: TmuxTerminal | undefined;
afterEach(() => terminal?.close());

const spec = `version: 0
name: no-color
runtime: { provider: scripted }
agents:
  worker: { prompt: "You work." }
pattern:
  type: chain
  config:
    steps:
      - { agent: worker, input: "one" }
      - { agent: worker, input: "two" }
`;

/** The SGR sequences' parameters in a styled capture: "32", "1", "38;5;12"… */
function sgrParameters(styled: string): string[] {
  return [...styled.matchAll(/\x1b\[([0-9;]*)m/g)].map((match) => match[1]!);
}

/** Whether any SGR sets a colour: 30–37, 90–97 (foreground), 40–47, 100–107 (background), 38/48 (256 and RGB). */
function setsColour(styled: string): boolean {
  return sgrParameters(styled).some((parameters) => parameters.split(';').some((p) => /^(3[0-8]|4[0-8]|9[0-7]|10[0-7])$/.test(p)));
}

describe('NO_COLOR in a real terminal (no-color.org)', () => {
  // FIXED: scripts/build.mjs (ink-no-color): the run view and the browser coloured their text under NO_COLOR=1 — chalk, which
  // Ink colours with, does not read it; only the plain lines (cli.tsx) honoured it. Styles (bold, inverse) stay.
  it('the run view and the session browser draw no colour, keeping bold and inverse; without it they colour', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'spec.yaml'), spec);
    for (const noColor of [false, true]) {
      const home = join(tempDir(), 'home');
      terminal = new TmuxTerminal(cwd, { ACODE_HOME: home, PATH: process.env.PATH ?? '', ...(noColor ? { NO_COLOR: '1' } : {}) }, { columns: 100, rows: 30 });
      // The next command is typed once the run has exited: keys typed while it still reads the terminal are its own.
      terminal.run(`node ${cliPath} run spec.yaml; echo "EXIT=$?"`);
      await terminal.waitFor((s) => s.includes('completed') && s.includes('2/2 done') && /^EXIT=0/m.test(s));
      const runView = terminal.styledScreen();
      expect(setsColour(runView), `run view, NO_COLOR ${noColor}:\n${runView}`).toBe(!noColor);
      expect(sgrParameters(runView)).toContain('1'); // the totals' "2/2 done" stays bold

      terminal.run(`node ${cliPath}`);
      await terminal.waitFor((s) => s.includes('1 session') && /❯ [0-9a-f]{8} no-color/.test(s));
      const browser = terminal.styledScreen();
      expect(setsColour(browser), `browser, NO_COLOR ${noColor}:\n${browser}`).toBe(!noColor);
      expect(sgrParameters(browser).some((parameters) => parameters.split(';').includes('7'))).toBe(true); // the selected row, inverse
      terminal.press('q');
      terminal.close();
    }
  });
});
