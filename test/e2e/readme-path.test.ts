import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { codeBlocksUnder, repoRoot } from '../helpers/markdown-docs.js';
import { OpenAiTestServer } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The README's path, as a newcomer takes it: its setup, demo and own-model commands, read from the
 * README's own code blocks and run in order by bash in a copy of this checkout — `npm install`,
 * `npm link` (into a prefix of the test's), the demo twice, the demo killed with `kill -9 <the pid
 * it printed>`, `acode resume`, then `acode init` pointed at a loopback model server by the README's
 * `runtime:` lines. When the README and the code drift apart, this fails.
 */
const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');

/** The command lines of the `sh` blocks under a README heading: one entry per block. */
function commandsUnder(heading: string): string[][] {
  const blocks = codeBlocksUnder(readme, heading).filter((block) => block.lang === 'sh');
  expect(blocks.length, `README.md has sh blocks under "${heading}"`).toBeGreaterThan(0);
  return blocks.map((block) => block.text.split('\n').map((line) => line.replace(/\s+#.*$/, '').trim()).filter(Boolean));
}

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const groups: ChildProcess[] = [];
afterEach(() => {
  // Each command runs in its own process group: whatever is left of it goes, even on a timeout.
  for (const child of groups.splice(0)) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** Starts one README line in bash, as typed at a prompt in `cwd`. */
function start(line: string, cwd: string, env: Record<string, string>): { child: ChildProcess; done: Promise<Ran>; stderrSoFar: () => string } {
  const child = spawn('bash', ['-c', line], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  groups.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<Ran>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done, stderrSoFar: () => stderr };
}

async function run(line: string, cwd: string, env: Record<string, string>): Promise<Ran> {
  const ran = await start(line, cwd, env).done;
  expect(ran.code, `${line}\n${ran.stderr}`).toBe(0);
  return ran;
}

/** Resolves with the first match of `pattern` in what `read` returns, looking again each 20 ms. */
async function seen(read: () => string, pattern: RegExp): Promise<RegExpExecArray> {
  for (;;) {
    const match = pattern.exec(read());
    if (match) return match;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** This checkout's files as git sees them (tracked, and new ones not ignored): what a clone of it would hold. */
function copyOfCheckout(): string {
  const copy = join(tempDir(), 'acode');
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repoRoot, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of files) {
    if (!existsSync(join(repoRoot, file))) continue;
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    writeFileSync(join(copy, file), readFileSync(join(repoRoot, file)));
  }
  // The demo's 2.5 s a step leaves a person time to kill it; a test needs less.
  const demo = join(copy, 'examples', 'chain-3-step-resume-demo.yaml');
  writeFileSync(demo, readFileSync(demo, 'utf8').replace(/latency_ms: \d+/, 'latency_ms: 400'));
  return copy;
}

describe("the README's path for a newcomer", () => {
  it('setup, the offline demo twice, kill -9 and resume, then your own model: each command as the README writes it', async () => {
    const clone = copyOfCheckout();
    const prefix = join(tempDir(), 'npm-global');
    const env: Record<string, string> = {
      // A person's shell (its proxy and certificate settings too), without what npm and vitest set for this run.
      ...Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined && !/^(npm_|VITEST|ACODE_|NODE_ENV$)/.test(entry[0]))),
      PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`,
      ACODE_HOME: join(tempDir(), 'acode-home'),
      // npm link's global folder is the test's; the package cache a machine has is used first.
      npm_config_prefix: prefix,
      npm_config_prefer_offline: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    };

    // Setup: the two commands, then `acode` is the linked CLI of this copy.
    for (const line of commandsUnder('Setup').flat()) await run(line, clone, env);
    expect(realpathSync(execFileSync('bash', ['-c', 'command -v acode'], { env, encoding: 'utf8' }).trim())).toBe(join(realpathSync(clone), 'dist', 'cli.js'));

    const [demo, killAndResume, ...rest] = commandsUnder('Try it offline: run, kill, resume');
    expect(rest).toEqual([]);
    expect(demo).toHaveLength(1);
    const [runDemo = ''] = demo!;
    const report = join(clone, 'artifacts', 'ai-agents-report.md');

    // The demo, and again: the second run replaces the report the first wrote, naming its session.
    const first = await run(runDemo, clone, env);
    const firstSession = /^acode: session ([0-9a-f]{16}) /m.exec(first.stderr)?.[1];
    expect(firstSession).toBeDefined();
    const uninterrupted = readFileSync(report, 'utf8');
    const second = await run(runDemo, clone, env);
    expect(second.stderr).toContain(`replacing artifacts/ai-agents-report.md, written by session ${firstSession}`);

    // Once more, killed with the pid it printed while step 2 runs; then resumed.
    const third = start(runDemo, clone, env);
    const pid = (await seen(third.stderrSoFar, /^acode: session [0-9a-f]{16} · chain-resume-demo · pid (\d+)$/m))[1]!;
    await seen(third.stderrSoFar, /^▶ step 2\/3 /m);
    expect(killAndResume).toEqual(['kill -9 <pid>', 'acode resume']);
    for (const line of killAndResume!) {
      const ran = await run(line.replace('<pid>', pid), clone, env);
      if (line.startsWith('kill')) {
        const killed = await third.done;
        expect(killed.signal === 'SIGKILL' || killed.code === 137, `the demo was killed: ${JSON.stringify(killed)}`).toBe(true);
        expect(killed.stderr).not.toMatch(/✓ completed/);
      } else {
        expect(ran.stderr).toContain('resuming: 1 skipped (completed earlier), 2 remaining');
        expect(ran.stderr).toContain('✓ completed');
      }
    }
    expect(readFileSync(report, 'utf8')).toBe(uninterrupted);

    // Your own model: the starter spec's runtime replaced by the README's lines, pointed at a loopback server.
    const server = new OpenAiTestServer();
    const baseUrl = await server.start();
    try {
      const [ownModel, ...more] = commandsUnder('Your own model');
      expect(more).toEqual([]);
      const [runtime, ...otherYaml] = codeBlocksUnder(readme, 'Your own model').filter((block) => block.lang === 'yaml');
      expect(otherYaml).toEqual([]);
      const readmeHost = /host: (\S+)/.exec(runtime!.text)?.[1];
      const model = /model_id: (\S+)/.exec(runtime!.text)?.[1];
      expect(readmeHost).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      server.models = [model!];
      const [init = '', runSpec = ''] = ownModel!;
      expect(init).toMatch(/^acode init /);
      await run(init, clone, env);
      const spec = join(clone, 'workflow.yaml');
      const starter = readFileSync(spec, 'utf8');
      const withRuntime = starter.replace(/^runtime:\n(?:[ #].*\n)*/m, `${runtime!.text.replace(readmeHost!, baseUrl)}\n`);
      expect(withRuntime).not.toBe(starter);
      writeFileSync(spec, withRuntime);
      const ran = await run(runSpec, clone, env);
      expect(ran.stderr).toContain('✓ completed');
      expect(server.requests.length).toBeGreaterThan(0);
      expect(new Set(server.requests.map((request) => request.body.model))).toEqual(new Set([model]));
    } finally {
      await server.stop();
    }
  }, 300_000);
});
