import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli.js';
import { fakeAgentClis, type FakeClis } from '../helpers/fake-agent-clis.js';
import { parseAllSessionFiles } from '../helpers/session-files.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Seed 003's pipeline: research → plan → implement, one agent CLI conversation across the three. */
const threePhases = (cli: 'claude' | 'codex') => `version: 0
name: three-phases
runtime:
  provider: scripted
env:
  secrets:
    - { source: env, key: FAKE_SECRET }
agents: {}
pattern:
  type: chain
  config:
    steps:
      - { type: agent_cli, cli: ${cli}, session: main, prompt: "PHASE:research Research {{ topic }}." }
      - { type: agent_cli, cli: ${cli}, session: main, prompt: "PHASE:plan Plan from: {{ steps[0].response }}" }
      - { type: agent_cli, cli: ${cli}, session: main, prompt: "PHASE:implement Implement: {{ steps[1].response }}" }
outputs:
  artifacts:
    - path: ./out/result.md
      from: "{% for s in steps %}{{ s.index }}: {{ s.response }}\\n{% endfor %}"
inputs:
  values: { topic: durable agents }
`;

interface Call {
  cli: string;
  argv: string[];
  prompt: string;
  pid: number;
  resume: string | null;
  secret: string | null;
  /** Whether the grandchild an earlier, hung call started was still alive when this call started. */
  earlierAlive: boolean | null;
}

function workspace(cli: 'claude' | 'codex') {
  const cwd = tempDir();
  // The fakes keep their log outside the working folder: only what the CLI does in it counts as its changes.
  const fakes = fakeAgentClis(tempDir());
  writeFileSync(join(cwd, 'phases.yaml'), threePhases(cli));
  return { cwd, fakes, env: { ACODE_HOME: join(cwd, 'home'), FAKE_SECRET: 'sk-fake-secret-value-123456', ...fakes.env } };
}

const calls = (fakes: FakeClis): Call[] =>
  existsSync(join(fakes.state, 'calls.jsonl')) ? readFileSync(join(fakes.state, 'calls.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Call) : [];
/** Processes whose process group is `pgid`, as ps lists them. */
function groupMembers(pgid: number): string[] {
  const ps = execFileSync('ps', ['-eo', 'pid=,pgid=,stat=,comm='], { encoding: 'utf8' });
  return ps.split('\n').map((line) => line.trim().split(/\s+/)).filter((cols) => Number(cols[1]) === pgid && !cols[2]?.startsWith('Z')).map((cols) => cols.join(' '));
}

const groups: number[] = [];
afterEach(() => {
  // Whatever a failed test left running: the fake CLI and its grandchild end with their group.
  for (const pgid of groups.splice(0)) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

async function waitFor(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Starts the three phases with the fakes told `control`, and waits until phase 2's CLI hangs: its pid leads its process group. */
async function hangInPhase2(ws: ReturnType<typeof workspace>, control: object) {
  writeFileSync(ws.fakes.control, JSON.stringify(control));
  const run = startCli(['run', 'phases.yaml'], ws);
  await waitFor(() => existsSync(join(ws.fakes.state, 'hanging')), 'phase 2 to be under way');
  const hanging = Number(readFileSync(join(ws.fakes.state, 'hanging'), 'utf8'));
  groups.push(hanging);
  return { run, hanging };
}

describe.each(['claude', 'codex'] as const)('agent CLI steps (%s)', (cli) => {
  it('runs three phases headless in one conversation: phases 2 and 3 continue the id phase 1 named', async () => {
    const ws = workspace(cli);
    const run = await runCli(['run', 'phases.yaml'], ws);
    expect(run.stderr).not.toContain("FAKE");
    expect(run.code, run.stderr).toBe(0);
    const [first, second, third] = calls(ws.fakes);
    expect(calls(ws.fakes)).toHaveLength(3);
    if (cli === 'claude') expect(first!.argv.slice(0, 4)).toEqual(['-p', '--output-format', 'stream-json', '--verbose']);
    else expect(first!.argv).toEqual(['exec', '--json', '-']);
    expect(first!.resume).toBeNull();
    expect(first!.prompt).toBe('PHASE:research Research durable agents.');
    const id = readSessionId(ws.env.ACODE_HOME);
    expect(second!.resume).toBe(id);
    expect(third!.resume).toBe(id);
    if (cli === 'claude') expect(second!.argv).toContain('--resume');
    else expect(second!.argv.slice(-3)).toEqual(['resume', id, '-']);
    // The spec's env.secrets stay with acode: the child never sees them.
    expect(calls(ws.fakes).every((call) => call.secret === null)).toBe(true);
    expect(readFileSync(join(ws.cwd, 'artifacts', 'out', 'result.md'), 'utf8')).toBe(`0: research done by ${cli} (1 task in this conversation)\n1: plan done by ${cli} (2 tasks in this conversation)\n2: implement done by ${cli} (3 tasks in this conversation)\n`);
    // Shown with the command that opens the conversation in the CLI itself.
    const [record] = parseAllSessionFiles(ws.env.ACODE_HOME);
    const show = await runCli(['sessions', 'show', record!.session_id], ws);
    expect(show.stdout).toContain(cli === 'claude' ? `claude --resume ${id}` : `codex resume ${id}`);
    // Claude says what each step cost: sessions show prices the step as it said (codex names no price: tokens only).
    if (cli === 'claude') expect(show.stdout).toMatch(/≈ \$0\.013/);
    else expect(show.stdout).not.toContain('≈ $');
  });

  it('kill -9 of acode during phase 2: the resume ends the CLI still running, re-runs phase 2 in the same conversation, never phase 1', async () => {
    const ws = workspace(cli);
    const { run, hanging } = await hangInPhase2(ws, { hang: 'PHASE:plan' });
    run.child.kill('SIGKILL');
    await run.done;
    // kill -9 of acode cannot take the CLI with it: its own process group outlives it (with its grandchild).
    expect(groupMembers(hanging).length).toBeGreaterThanOrEqual(2);
    const [record] = parseAllSessionFiles(ws.env.ACODE_HOME);
    const events = readFileSync(join(ws.env.ACODE_HOME, 'sessions', record!.session_id, 'events.jsonl'), 'utf8');
    // Phase 2's child and the conversation it continues were journaled before acode died.
    expect(events).toMatch(new RegExp(`"type":"agent_cli_started","step":"1"[^\\n]*"pid":${hanging},[^\\n]*"resume_id":"${readSessionId(ws.env.ACODE_HOME)}"`));
    // What the interrupted CLI changed before acode died is what the resume asks about; without a terminal it stops there.
    const plan = await runCli(['resume', record!.session_id, '--dry-run'], ws);
    expect(plan.stdout).toMatch(/created +plan\.md .*was working in this folder when acode stopped/);
    expect(plan.stdout).toMatch(new RegExp(`2 ${cli}, attempt 1 → end ${cli} \\(pid ${hanging}\\) if it still runs, then continue its conversation ${readSessionId(ws.env.ACODE_HOME)} as attempt 2`));
    const asked = await runCli(['resume', record!.session_id], ws);
    expect(asked.code).toBe(17);
    expect(asked.stderr).toContain('plan.md');
    expect(asked.stderr).not.toContain('research.md');
    const resume = await runCli(['resume', record!.session_id, '--yes'], ws);
    expect(resume.code, resume.stderr).toBe(0);
    // The old CLI and everything it started were ended before the retry: two agents never work in one folder.
    expect(groupMembers(hanging)).toEqual([]);
    const id = readSessionId(ws.env.ACODE_HOME);
    expect(calls(ws.fakes).filter((call) => call.prompt.includes('PHASE:research'))).toHaveLength(1);
    const retried = calls(ws.fakes)[2]!;
    expect(retried.resume).toBe(id);
    expect(retried.prompt).toMatch(/^You were interrupted/);
    expect(calls(ws.fakes)).toHaveLength(4);
    expect(readFileSync(join(ws.cwd, 'artifacts', 'out', 'result.md'), 'utf8')).toBe(`0: research done by ${cli} (1 task in this conversation)\n1: plan done by ${cli} (2 tasks in this conversation)\n2: implement done by ${cli} (3 tasks in this conversation)\n`);
    // Every file a phase changed (the interrupted attempt's edit included) is now one the session has seen: a later edit by a person is noticed.
    const journal = readFileSync(join(ws.env.ACODE_HOME, 'sessions', record!.session_id, 'events.jsonl'), 'utf8');
    const touched = journal.split('\n').filter((line) => line.includes('"type":"agent_cli_files"')).map((line) => (JSON.parse(line) as { files: { path: string }[] }).files.map((f) => f.path));
    expect(touched).toEqual([[join(ws.cwd, 'research.md')], [join(ws.cwd, 'plan.md')], [join(ws.cwd, 'implement.md')]]);
  }, 60_000);

  it('kill -9 of acode, then of the CLI alone: the resume still ends what the CLI started before it retries', async () => {
    const ws = workspace(cli);
    const { run, hanging } = await hangInPhase2(ws, { hang: 'PHASE:plan' });
    run.child.kill('SIGKILL');
    await run.done;
    // The CLI dies (its pipe to acode broke, or the OOM killer took it); a build it started keeps running in its group.
    process.kill(hanging, 'SIGKILL');
    await waitFor(() => groupMembers(hanging).length === 1, 'only the grandchild left in the group');
    const [record] = parseAllSessionFiles(ws.env.ACODE_HOME);
    const resume = await runCli(['resume', record!.session_id, '--yes'], ws);
    expect(resume.code, resume.stderr).toBe(0);
    expect(groupMembers(hanging)).toEqual([]);
    // Ended before the retry started, not after: the retried CLI never worked beside it.
    expect(calls(ws.fakes)[2]!.earlierAlive).toBe(false);
  }, 60_000);

  it('a CLI that ignores SIGTERM is killed (SIGKILL) within the grace when acode is stopped', async () => {
    const ws = workspace(cli);
    const { run, hanging } = await hangInPhase2(ws, { hang: 'PHASE:plan', trapTerm: true });
    const stopped = Date.now();
    run.child.kill('SIGINT');
    await run.done;
    expect(existsSync(join(ws.fakes.state, 'ignored-term'))).toBe(true);
    expect(groupMembers(hanging)).toEqual([]);
    // 3 s of grace, then SIGKILL: not the CLI's whole run.
    expect(Date.now() - stopped).toBeLessThan(8000);
  }, 60_000);

  it('Ctrl+C (SIGINT) of acode ends the CLI and everything it started, and pauses resumable', async () => {
    const ws = workspace(cli);
    const { run, hanging } = await hangInPhase2(ws, { hang: 'PHASE:plan' });
    run.child.kill('SIGINT');
    const done = await run.done;
    expect(done.stderr).toContain('paused');
    expect(groupMembers(hanging)).toEqual([]);
    const [record] = parseAllSessionFiles(ws.env.ACODE_HOME);
    expect(record!.checkpoint.status).toBe('paused');
  }, 60_000);

  it('a usage limit waits for the reset the CLI names, then continues the same conversation', async () => {
    const ws = workspace(cli);
    writeFileSync(ws.fakes.control, JSON.stringify({ limit: 'PHASE:plan', limitMessage: "You've hit your usage limit. Try again in 2 seconds." }));
    const run = await runCli(['run', 'phases.yaml'], ws);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/usage limit[^\n]*retry 1\/\d+ in [12] s/);
    const id = readSessionId(ws.env.ACODE_HOME);
    const plan = calls(ws.fakes).slice(1, 3);
    expect(plan.map((call) => call.resume)).toEqual([id, id]);
    expect(plan[1]!.prompt).toMatch(/^You were interrupted/);
    expect(calls(ws.fakes)).toHaveLength(4);
  }, 60_000);
});

describe.each(['claude', 'codex'] as const)('a hostile agent CLI (%s)', (cli) => {
  const secret = 'sk-fake-secret-value-123456';
  const apiKey = 'sk-ant-api03-' + 'A1b2C3d4E5f6G7h8I9j0'.repeat(3);
  /** Everything acode wrote or printed for the session. */
  const written = (home: string, printed: string): string => {
    const [record] = parseAllSessionFiles(home);
    const folder = join(home, 'sessions', record!.session_id);
    return [printed, readFileSync(join(folder, 'events.jsonl'), 'utf8'), readFileSync(join(folder, 'session.json'), 'utf8')].join('\n');
  };

  it('repeats a registered secret and an API key in its answer, tool uses and stderr: none reaches the log, session.json, --stream or --json', async () => {
    const ws = workspace(cli);
    writeFileSync(ws.fakes.control, JSON.stringify({ say: `${secret} ${apiKey}` }));
    const streamed = await runCli(['run', 'phases.yaml', '--stream'], ws);
    expect(streamed.code, streamed.stderr).toBe(0);
    const all = written(ws.env.ACODE_HOME, streamed.stdout + streamed.stderr);
    expect(all).toContain('Found');
    expect(all).not.toContain(secret);
    expect(all).not.toContain(apiKey);
    const json = await runCli(['run', 'phases.yaml', '--json', '--force'], { ...ws, env: { ...ws.env, ACODE_HOME: join(ws.cwd, 'home2') } });
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout + json.stderr).not.toContain(secret);
    expect(json.stdout + json.stderr).not.toContain(apiKey);
  }, 60_000);

  it('writes a 100 MB line with no newline after garbage lines: stopped at 16 MiB with a clear failure, in bounded time', async () => {
    const ws = workspace(cli);
    writeFileSync(ws.fakes.control, JSON.stringify({ garbage: true, longLineMb: 100 }));
    const started = Date.now();
    const run = await runCli(['run', 'phases.yaml'], ws);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('wrote a line longer than 16 MiB');
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 60_000);

  it('answers and exits, leaving a process that holds its stdout: the step completes and the leftover is ended', async () => {
    const ws = workspace(cli);
    writeFileSync(ws.fakes.control, JSON.stringify({ leaveBehind: 'PHASE:research' }));
    const run = startCli(['run', 'phases.yaml'], ws);
    await waitFor(() => existsSync(join(ws.fakes.state, 'left-behind')), 'phase 1 to leave a process behind');
    groups.push(calls(ws.fakes)[0]!.pid);
    const timer = setTimeout(() => run.child.kill('SIGKILL'), 20_000);
    const done = await run.done;
    clearTimeout(timer);
    expect(done.code, done.stderr).toBe(0);
    expect(calls(ws.fakes)).toHaveLength(3);
    expect(groupMembers(calls(ws.fakes)[0]!.pid)).toEqual([]);
  }, 60_000);

  it.each(['../..', 'outside/tmp'])('with cwd: %s (up, or through a symlink out of the working directory) is refused before it runs', async (where) => {
    const ws = workspace(cli);
    symlinkSync('/', join(ws.cwd, 'outside'));
    writeFileSync(join(ws.cwd, 'phases.yaml'), threePhases(cli).replace('session: main, prompt: "PHASE:research', `session: main, cwd: "${where}", prompt: "PHASE:research`));
    const run = await runCli(['run', 'phases.yaml'], ws);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`cwd: path '${where}' is outside the working directory ${ws.cwd}; add its folder under env.mounts`);
    expect(calls(ws.fakes)).toEqual([]);
  }, 60_000);

  it('past its timeout: its group is ended and the attempt retried in the same conversation', async () => {
    const ws = workspace(cli);
    writeFileSync(ws.fakes.control, JSON.stringify({ hang: 'PHASE:plan' }));
    writeFileSync(join(ws.cwd, 'phases.yaml'), threePhases(cli).replace('session: main, prompt: "PHASE:plan', 'session: main, timeout: 1, prompt: "PHASE:plan'));
    const run = await runCli(['run', 'phases.yaml'], ws);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/ran past its timeout of 1 s/);
    const hung = calls(ws.fakes)[1]!;
    expect(groupMembers(hung.pid)).toEqual([]);
    const retried = calls(ws.fakes)[2]!;
    expect(retried.resume).toBe(readSessionId(ws.env.ACODE_HOME));
    expect(retried.prompt).toMatch(/^You were interrupted/);
    expect(retried.earlierAlive).toBe(false);
  }, 60_000);

  it('exits 0 without a result: a failure saying so, its session id kept', async () => {
    const ws = workspace(cli);
    writeFileSync(ws.fakes.control, JSON.stringify({ silent: true }));
    const run = await runCli(['run', 'phases.yaml'], ws);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${cli} exited with code 0 without a result`);
    expect(readSessionId(ws.env.ACODE_HOME)).toBeTruthy();
    expect(calls(ws.fakes)).toHaveLength(1);
  }, 60_000);

  it('exits non-zero without a result after 1 MB of stderr: a bounded failure with its last words, redacted', async () => {
    const ws = workspace(cli);
    writeFileSync(ws.fakes.control, JSON.stringify({ failWith: `fatal: token ${secret} rejected`, stderrBytes: 1024 * 1024 }));
    const run = await runCli(['run', 'phases.yaml'], ws);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('fatal: token');
    expect(run.stderr).toContain('rejected');
    const all = written(ws.env.ACODE_HOME, run.stdout + run.stderr);
    expect(all).not.toContain(secret);
    expect(run.stderr.length).toBeLessThan(16 * 1024);
    expect(readFileSync(join(ws.env.ACODE_HOME, 'sessions', parseAllSessionFiles(ws.env.ACODE_HOME)[0]!.session_id, 'events.jsonl'), 'utf8').length).toBeLessThan(64 * 1024);
  }, 60_000);
});

/** The conversation id the session journaled (the first agent_cli_session naming one). */
function readSessionId(home: string): string {
  const [record] = parseAllSessionFiles(home);
  const line = readFileSync(join(home, 'sessions', record!.session_id, 'events.jsonl'), 'utf8').split('\n').find((l) => l.includes('"type":"agent_cli_session"') && !l.includes('"session_id":null'));
  return (JSON.parse(line!) as { session_id: string }).session_id;
}

describe('agent CLI steps that may run at the same time', () => {
  const head = `version: 0
name: side-by-side
runtime:
  provider: scripted
agents: {}
`;
  const specs = {
    parallel: `${head}pattern:
  type: parallel
  config:
    branches:
      - id: a
        steps:
          - { type: agent_cli, cli: claude, session: main, prompt: "PHASE:a one" }
      - id: b
        steps:
          - { type: agent_cli, cli: claude, prompt: "PHASE:b alone" }
          - { type: agent_cli, cli: claude, session: main, prompt: "PHASE:b two" }
`,
    workflow: `${head}pattern:
  type: workflow
  config:
    tasks:
      - { id: research, type: agent_cli, cli: codex, session: main, prompt: "PHASE:research r" }
      - { id: left, deps: [research], type: agent_cli, cli: codex, session: main, prompt: "PHASE:left l" }
      - { id: right, deps: [research], type: agent_cli, cli: codex, session: main, prompt: "PHASE:right r" }
`,
  };

  it.each(['parallel', 'workflow'] as const)('%s: two steps continuing one session at once are refused by validate, naming both', async (kind) => {
    const cwd = tempDir();
    const fakes = fakeAgentClis(tempDir());
    writeFileSync(join(cwd, 'spec.yaml'), specs[kind]);
    const env = { ACODE_HOME: join(cwd, 'home'), ...fakes.env };
    const validate = await runCli(['validate', 'spec.yaml'], { cwd, env });
    expect(validate.code).toBe(2);
    const line = kind === 'parallel' ? 16 : 12;
    expect(validate.stderr).toMatch(new RegExp(`spec\\.yaml:${line}:\\d+: error: ${kind === 'parallel' ? "branch 'b' step 2 and branch 'a' step 1" : "task 'right' and task 'left'"} both continue the ${kind === 'parallel' ? 'claude' : 'codex'} session 'main'`));
    const run = await runCli(['run', 'spec.yaml'], { cwd, env });
    expect(run.code).toBe(2);
    expect(calls(fakes)).toEqual([]);
  });

  it('parallel branches each with their own session (or none) run their CLIs side by side', async () => {
    const cwd = tempDir();
    const fakes = fakeAgentClis(tempDir());
    writeFileSync(join(cwd, 'spec.yaml'), specs.parallel.replace('session: main, prompt: "PHASE:b two"', 'session: other, prompt: "PHASE:b two"'));
    const run = await runCli(['run', 'spec.yaml'], { cwd, env: { ACODE_HOME: join(cwd, 'home'), ...fakes.env } });
    expect(run.code, run.stderr).toBe(0);
    expect(calls(fakes)).toHaveLength(3);
    expect(calls(fakes).every((call) => call.resume === null)).toBe(true);
  });
});

describe('an agent CLI that is not installed', () => {
  it('is a validation error naming it, before any session exists', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'phases.yaml'), threePhases('codex'));
    const env = { ACODE_HOME: join(cwd, 'home'), PATH: '/usr/bin:/bin' };
    const validate = await runCli(['validate', 'phases.yaml'], { cwd, env });
    expect(validate.code).not.toBe(0);
    expect(validate.stderr).toMatch(/phases\.yaml:\d+.*runs the codex CLI, which is not on PATH/);
    const run = await runCli(['run', 'phases.yaml'], { cwd, env });
    expect(run.code).toBe(validate.code);
    expect(existsSync(join(cwd, 'home', 'sessions'))).toBe(false);
  });
});

describe('the shipped agent-CLI examples', () => {
  it.each(['claude', 'codex'] as const)('examples/%s-research-plan-implement.yaml runs its three phases in one conversation', async (cli) => {
    const cwd = tempDir();
    const fakes = fakeAgentClis(tempDir());
    const example = readFileSync(new URL(`../../examples/${cli}-research-plan-implement.yaml`, import.meta.url), 'utf8');
    writeFileSync(join(cwd, 'pipeline.yaml'), example);
    const run = await runCli(['run', 'pipeline.yaml', '--var', 'task=add a --version flag'], { cwd, env: { ACODE_HOME: join(cwd, 'home'), ...fakes.env } });
    expect(run.code, run.stderr).toBe(0);
    const made = calls(fakes);
    expect(made).toHaveLength(3);
    expect(made[0]!.resume).toBeNull();
    expect(new Set(made.slice(1).map((call) => call.resume)).size).toBe(1);
    expect(made[1]!.resume).not.toBeNull();
    expect(readFileSync(join(cwd, 'artifacts', `${cli}-pipeline-report.md`), 'utf8')).toContain('# add a --version flag');
  });
});

describe('agent CLI nodes of a graph', () => {
  it('run as any node does, the second continuing the conversation the first named', async () => {
    const cwd = tempDir();
    const fakes = fakeAgentClis(tempDir());
    writeFileSync(
      join(cwd, 'graph.yaml'),
      `version: 0
name: cli-graph
runtime:
  provider: scripted
agents: {}
pattern:
  type: graph
  config:
    nodes:
      research: { type: agent_cli, cli: claude, session: main, prompt: "PHASE:research Research." }
      build: { type: agent_cli, cli: claude, session: main, prompt: "PHASE:implement Build from: {{ nodes.research.response }}" }
    edges:
      - { from: research, to: build }
`,
    );
    const run = await runCli(['run', 'graph.yaml'], { cwd, env: { ACODE_HOME: join(cwd, 'home'), ...fakes.env } });
    expect(run.code, run.stderr).toBe(0);
    const made = calls(fakes);
    expect(made).toHaveLength(2);
    expect(made[1]!.resume).toBe(readSessionId(join(cwd, 'home')));
    expect(made[1]!.prompt).toBe('PHASE:implement Build from: research done by claude (1 task in this conversation)');
  });
});

/** Claude repeats the id on every line; a stream that names another one mid-way must not leave it as the session's. */
describe('a claude stream naming two session ids', () => {
  const cli = 'claude' as const;
  it('names another session id mid-stream, then its own in the result: the next phase continues the id named last', async () => {
    const ws = workspace(cli);
    writeFileSync(ws.fakes.control, JSON.stringify({ switchId: true }));
    const run = await runCli(['run', 'phases.yaml'], ws);
    expect(run.code, run.stderr).toBe(0);
    const [first, second] = calls(ws.fakes);
    expect(second!.resume).not.toMatch(/^other-/);
    expect(calls(ws.fakes).slice(1).every((call) => call.resume === second!.resume)).toBe(true);
    expect(first!.resume).toBeNull();
  }, 60_000);
});
