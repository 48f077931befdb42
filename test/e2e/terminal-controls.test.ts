import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chainSpec } from '../helpers/chain-spec.js';
import { cliPath, runCli } from '../helpers/cli.js';
import { openAiServerPerTest } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { TmuxTerminal } from '../helpers/tmux.js';

/**
 * A model's answer (and a file an agent wrote) is text from elsewhere: shown in a terminal, its
 * escape sequences would clear the screen, retitle the window, link text elsewhere or reset the
 * terminal. The live run view always dropped them; these are the other places it is shown.
 */

const openai = openAiServerPerTest();
let terminal: TmuxTerminal | undefined;
afterEach(() => terminal?.close());

/** Clear the screen, home the cursor, a title, a link, leave the alternate screen, reset; a CR, a backspace, a bidi override. */
const hostile = 'first \u001b[2J\u001b[HRED\u001b]0;PWNED-TITLE\u0007 \u001b]8;;http://evil.example\u001b\\link\u001b]8;;\u001b\\ \u001b[?1049l\u001bc\rCR\bBS \u202eevil\nsecond line\tend';

/** Any escape, C0 control but newline and tab, C1 control or bidi override. */
const controlCharacters = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

async function sessionWithHostileAnswer() {
  const { server, baseUrl } = openai.current();
  server.handler = () => ({ kind: 'answer', text: hostile });
  const cwd = tempDir();
  const home = join(cwd, 'home');
  writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps: 1, provider: 'openai', host: baseUrl, name: 'hostile' }).replace(/outputs:[\s\S]*$/, ''));
  const ws = { cwd, env: { ACODE_HOME: home, OPENAI_API_KEY: 'sk-test' } };
  const run = await runCli(['run', 'spec.yaml', '--json'], ws);
  expect(run.code, run.stderr).toBe(0);
  return { ws, home, id: (JSON.parse(run.stdout) as { session_id: string }).session_id };
}

describe('text from a model shown in a terminal', () => {
  // FIXED: source/commands/sessions.ts, source/state/step-detail-lines.ts (terminalText): `sessions show` and `--step` printed the
  // answer as sent — the screen cleared, the terminal reset, the title changed.
  it('sessions show, show --step and history print it without terminal controls; --json keeps it whole', async () => {
    const { ws, id } = await sessionWithHostileAnswer();
    for (const args of [['sessions', 'show', id], ['sessions', 'show', id, '--step', '1'], ['sessions', 'history', id]]) {
      const shown = await runCli(args, ws);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout, args.join(' ')).not.toMatch(controlCharacters);
      expect(shown.stdout).toContain('first');
    }
    const step = (await runCli(['sessions', 'show', id, '--step', '1'], ws)).stdout;
    // The words stay, the sequences go; lines and tabs stay.
    expect(step).toContain('  first RED link cCRBS evil');
    expect(step).toContain('  second line\tend');
    const json = JSON.parse((await runCli(['sessions', 'show', id, '--step', '1', '--json'], ws)).stdout) as { response: string };
    expect(json.response).toBe(hostile);
  });

  // FIXED: source/ui/browser/line-text.tsx, first-paint.ts: the browser's first paint wrote the last response raw (clearing the
  // screen, leaving the alternate screen) and Ink's frames passed its title and link through.
  it('the browser shows it without changing the title or leaving its screen', async () => {
    const { ws, home } = await sessionWithHostileAnswer();
    mkdirSync(join(ws.cwd, 'elsewhere'));
    terminal = new TmuxTerminal(ws.cwd, { ACODE_HOME: home, PATH: process.env.PATH ?? '' }, { columns: 140, rows: 30 });
    terminal.run(`printf '\\033]0;KEPT-TITLE\\007'; echo MARKER-BEFORE; node ${cliPath}`);
    const screen = await terminal.waitFor((s) => s.includes('last response first RED link c CRBS evil second line end'));
    expect(screen).not.toContain('MARKER-BEFORE'); // still on the browser's own screen
    expect(terminal.title()).toBe('KEPT-TITLE');
    terminal.press('Enter'); // its steps, then the step's whole response
    await terminal.waitFor((s) => /✓ 1 +worker/.test(s));
    terminal.press('Enter');
    await terminal.waitFor((s) => s.includes('second line'));
    expect(terminal.title()).toBe('KEPT-TITLE');
    expect(terminal.styledScreen()).not.toMatch(/\u001b\][0-9]/);
  });

  // FIXED: source/commands/run-session.ts, resume.ts, source/ui/run/approval-text.ts, run-header.tsx: the plain lines (an
  // approval's context holds the model's answer), resume --dry-run's header, the run view's approval panel and header wrote
  // them raw — the title changed while the panel asked.
  it('the plain lines, resume --dry-run and the run view show it without terminal controls', async () => {
    const { server, baseUrl } = openai.current();
    server.handler = () => ({ kind: 'answer', text: hostile });
    const cwd = tempDir();
    const home = join(cwd, 'home');
    const gated = `version: 0
name: "gate \\e]0;NAME-TITLE\\a"
runtime: { provider: openai, host: "${baseUrl}", model_id: m }
agents:
  worker: { prompt: "You work." }
pattern:
  type: chain
  config:
    steps:
      - { agent: worker, input: "Step 0" }
      - { type: hitl, prompt: "Ship it?", context_display: "{{ steps[0].response }}" }
`;
    writeFileSync(join(cwd, 'spec.yaml'), gated);
    const ws = { cwd, env: { ACODE_HOME: home, OPENAI_API_KEY: 'sk-test' } };
    const plain = await runCli(['run', 'spec.yaml'], ws);
    expect(plain.stderr).toContain('second line');
    expect(plain.stderr, plain.stderr).not.toMatch(controlCharacters);
    const id = /session ([0-9a-f]{16})/.exec(plain.stderr)![1]!;
    const dry = await runCli(['resume', id, '--dry-run'], ws);
    expect(dry.stdout).toContain('gate');
    expect(dry.stdout).not.toMatch(controlCharacters);

    terminal = new TmuxTerminal(cwd, { ACODE_HOME: join(cwd, 'home2'), PATH: process.env.PATH ?? '', OPENAI_API_KEY: 'sk-test' }, { columns: 140, rows: 30 });
    terminal.run(`printf '\\033]0;KEPT-TITLE\\007'; node ${cliPath} run spec.yaml`);
    await terminal.waitFor((s) => s.includes('Ship it?') && s.includes('second line'));
    expect(terminal.title()).toBe('KEPT-TITLE');
    terminal.press('C-c');
  });
});
