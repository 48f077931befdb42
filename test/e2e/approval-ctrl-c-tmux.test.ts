import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliPath, runCli } from '../helpers/cli.js';
import { parseAllSessionFiles } from '../helpers/session-files.js';
import { tempDir } from '../helpers/temp-dir.js';
import { TmuxTerminal } from '../helpers/tmux.js';

/** Research, then a gate, then analysis: offline (scripted provider). */
const spec = `version: 0
name: gate
runtime:
  provider: scripted
agents:
  researcher: { prompt: "You research." }
  analyst: { prompt: "You analyse." }
pattern:
  type: chain
  config:
    steps:
      - { agent: researcher, input: "Research durable agents" }
      - type: hitl
        prompt: "Review the research and approve proceeding to analysis."
        default: approved
      - { agent: analyst, input: "Review: {{ steps[1].response }}" }
`;

const panelKeys = 'a approve (records "approved") · e edit a response · r reject';

let terminal: TmuxTerminal | undefined;
afterEach(() => terminal?.close());

/** The gate asked in a real terminal's run view. */
async function asked() {
  const cwd = tempDir();
  const home = join(cwd, 'home');
  writeFileSync(join(cwd, 'gate.yaml'), spec);
  const ws = { cwd, env: { ACODE_HOME: home } };
  terminal = new TmuxTerminal(cwd, { ACODE_HOME: home, PATH: process.env.PATH ?? '' }, { columns: 110, rows: 30 });
  terminal.run(`node ${cliPath} run gate.yaml; echo "EXIT=$?"`);
  await terminal.waitFor((s) => s.includes(panelKeys));
  return { ws, home, terminal };
}

/** What README's "Approval steps" promises after Ctrl+C: still waiting, exit 130, and how to answer it, on screen and on disk. */
async function expectLeftWaiting({ ws, home, terminal }: Awaited<ReturnType<typeof asked>>) {
  const screen = await terminal.waitFor((s) => /EXIT=\d+/.test(s));
  const [record] = parseAllSessionFiles(home);
  const id = record!.session_id;
  expect(screen).toContain('EXIT=130');
  expect(screen).toContain('⏸ awaiting approval');
  expect(screen.replace(/\s+/g, ' ')).toContain(`Answer it with: acode resume ${id} (in a terminal), or add --approve, --response "…" or --reject`);
  expect(screen).not.toContain('paused');
  expect(screen).not.toContain('interrupted');
  expect(record!.checkpoint).toMatchObject({ status: 'awaiting_approval', steps_done: 1 });
  const list = await runCli(['sessions', 'list'], ws);
  expect(list.stdout).toMatch(new RegExp(`${id} +gate +awaiting_approval`));
  // Answered later, as the hint says.
  const answered = await runCli(['resume', id, '--response', 'later'], ws);
  expect(answered.code).toBe(0);
}

describe('Ctrl+C at an approval in the run view', () => {
  it('leaves the session awaiting its answer, exit 130, with how to answer it', async () => {
    const session = await asked();
    session.terminal.press('C-c');
    await expectLeftWaiting(session);
  });

  it('leaves it awaiting its answer from the edit box too, what was typed unrecorded', async () => {
    const session = await asked();
    session.terminal.press('e');
    await session.terminal.waitFor((s) => s.includes('response ›') && s.includes('Enter submit · Esc cancel'));
    session.terminal.press('-l', 'half a thought');
    await session.terminal.waitFor((s) => s.includes('response › half a thought'));
    session.terminal.press('C-c');
    await expectLeftWaiting(session);
    const history = JSON.parse((await runCli(['sessions', 'history', parseAllSessionFiles(session.home)[0]!.session_id, '--json'], session.ws)).stdout) as { type: string; response?: string }[];
    expect(history.filter((e) => e.type === 'approval_answered')).toEqual([expect.objectContaining({ response: 'later' })]);
  });
});
