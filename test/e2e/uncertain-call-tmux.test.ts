import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliPath } from '../helpers/cli.js';
import { TmuxTerminal } from '../helpers/tmux.js';
import { code, events, killWhilePythonRuns, runs, sessionId, startedGroups, workspace } from '../helpers/uncertain-calls.js';

let terminal: TmuxTerminal | undefined;
afterEach(() => terminal?.close());

/** The screen as one line: the question wraps at the terminal's width. */
const unwrapped = (s: string) => s.replace(/\n/g, '');
const question = (s: string) => /Run it again\? \(no: taken as not done, the model is told\) \[y\/N\]/.test(unwrapped(s));

describe('the question about a call cut off by a crash (resume --strategy prompt) in a real terminal', () => {
  it.each([
    ['y', 2, 'run_again'],
    ['n', 1, 'not_done'],
  ] as const)('answered %s: the code runs %i time(s) in all', async (answer, times, outcome) => {
    const ws = workspace({ name: 'python_exec', args: { code } });
    await killWhilePythonRuns(ws);
    writeFileSync(join(ws.cwd, 'go-on'), '');
    terminal = new TmuxTerminal(ws.cwd, { ACODE_HOME: ws.home, PATH: process.env.PATH ?? '' });
    terminal.run(`node ${cliPath} resume ${sessionId(ws)} --strategy prompt; echo "EXIT=$?"`);
    const screen = await terminal.waitFor(question);
    expect(unwrapped(screen)).toMatch(/cut off when the session stopped, may or may not have happened: python_exec: 6 lines \(.+\)\./);
    terminal.run(answer);
    await terminal.waitFor((s) => s.includes('EXIT=0'));
    expect(runs(ws)).toHaveLength(times);
    startedGroups.push(...runs(ws));
    expect(events(ws).find((e) => e.type === 'tool_effect_recovered')).toMatchObject({ outcome });
  });
});
