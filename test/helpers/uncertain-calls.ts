import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { stringify } from 'yaml';
import { startCli } from './cli.js';
import { tempDir } from './temp-dir.js';

/**
 * A session killed with SIGKILL while a python_exec runs (a real python3 child): the call is left
 * uncertain for a resume to settle (test/e2e/tool-effects.test.ts, uncertain-call-tmux.test.ts).
 */
/** Appends its pid to runs.txt, then waits for `go-on` before it finishes: the kill lands while it runs. */
export const code = [
  'import os, time',
  "with open('runs.txt', 'a') as f:",
  "    f.write(str(os.getpid()) + '\\n')",
  "while not os.path.exists('go-on'):",
  '    time.sleep(0.05)',
  "print('finished')",
].join('\n');

export function workspace(tool: { name: string; args: Record<string, unknown> }, extra: Record<string, unknown> = {}) {
  const root = tempDir();
  const cwd = join(root, 'work');
  const home = join(root, 'home');
  mkdirSync(cwd, { recursive: true });
  const spec = {
    version: 0,
    name: 'uncertain-calls',
    runtime: { provider: 'scripted', scripted: { responses: { coder: { tool_calls: [tool], then: 'the call is done' } } } },
    tools: { python: [tool.name] },
    ...extra,
    agents: { coder: { prompt: 'You run things.' } },
    pattern: { type: 'chain', config: { steps: [{ agent: 'coder', input: 'Do it.' }] } },
  };
  writeFileSync(join(root, 'spec.yaml'), stringify(spec));
  return { cwd, home, spec: join(root, 'spec.yaml'), env: { ACODE_HOME: home } };
}

export type Ws = ReturnType<typeof workspace>;
export type Event = { type: string; name?: string; outcome?: string; output?: string; call_id?: string };

export const sessionId = (ws: Ws) => readdirSync(join(ws.home, 'sessions'))[0]!;
export const events = (ws: Ws): Event[] =>
  readFileSync(join(ws.home, 'sessions', sessionId(ws), 'events.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Event);
export const runs = (ws: Ws) => (existsSync(join(ws.cwd, 'runs.txt')) ? readFileSync(join(ws.cwd, 'runs.txt'), 'utf8').split('\n').filter(Boolean).map(Number) : []);

/** python3 children a test started in their own process groups: killed after it, whatever happened. */
export const startedGroups: number[] = [];
afterEach(() => {
  for (const pid of startedGroups.splice(0)) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Ended already.
    }
  }
});

/** Whether a process still runs: one whose parent died may stay a zombie (state Z) until it is reaped. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

export async function killWhilePythonRuns(ws: Ws): Promise<number> {
  const run = startCli(['run', ws.spec], ws);
  try {
    await expect.poll(() => runs(ws).length, { timeout: 20_000 }).toBe(1);
  } finally {
    run.child.kill('SIGKILL');
  }
  expect((await run.done).signal).toBe('SIGKILL');
  const [pid] = runs(ws);
  startedGroups.push(pid!);
  // Its own process group, which acode's death ends: the code is not left running while a resume decides.
  await expect.poll(() => alive(pid!), { timeout: 5000 }).toBe(false);
  return pid!;
}

