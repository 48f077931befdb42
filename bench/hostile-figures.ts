import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `node dist/bench.js hostile`: the worst inputs issue 33 bounded — templates, specs, an endless
 * stream — each run by the real CLI in a child, with its peak RSS (written by the child itself as
 * it exits) and wall time beside the limit that stops it. Targets: ≤ 300 MB and ≤ 10 s each.
 */

const cli = fileURLToPath(new URL('./cli.js', import.meta.url));

export interface HostileFigure {
  name: string;
  limit: string;
  ms: number;
  rssMb: number;
  exitCode: number | null;
  /** The line of stderr that names the limit (or the last line). */
  said: string;
}

const head = `version: 0
name: hostile
runtime: { provider: scripted }
inputs:
  values: { topic: durability, n: 1000000000 }
agents:
  writer:
    prompt: "You write."
pattern:
  type: chain
  config:
    steps:
      - agent: writer
`;

const withInput = (template: string) => `${head}        input: ${JSON.stringify(template)}\n`;

function openAiSpec(baseUrl: string): string {
  return head.replace('runtime: { provider: scripted }', `runtime: { provider: openai, model_id: m, host: "${baseUrl}" }`) + '        input: "go"\n';
}

/**
 * Where the child's stdout goes: nowhere (`ignore`), a pipe read as fast as it comes (`pipe`), or a
 * pipe nobody reads for its first `lateMs` (then read as fast as it comes).
 */
type Stdout = 'ignore' | 'pipe' | { lateMs: number };

/** Runs the CLI in `dir` with `args`; the child writes its peak RSS to a file as it exits. */
async function measure(dir: string, args: string[], env: Record<string, string> = {}, stdout: Stdout = 'ignore'): Promise<Omit<HostileFigure, 'name' | 'limit'>> {
  const probe = join(dir, 'rss-probe.mjs');
  const out = join(dir, 'rss.txt');
  writeFileSync(probe, `import { writeFileSync } from 'node:fs';\nprocess.on('exit', () => writeFileSync(${JSON.stringify(out)}, String(process.resourceUsage().maxRSS)));\n`);
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', probe, cli, ...args], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, ACODE_HOME: join(dir, 'home'), ...env }, stdio: ['ignore', stdout === 'ignore' ? 'ignore' : 'pipe', 'pipe'] });
  // Paused until read: the pipe fills (64 KiB), then the child's writes wait.
  if (child.stdout) {
    child.stdout.pause();
    setTimeout(() => child.stdout?.resume(), typeof stdout === 'object' ? stdout.lateMs : 0);
  }
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exitCode = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const ms = performance.now() - started;
  let rssKb = 0;
  try {
    rssKb = Number(readFileSync(out, 'utf8'));
  } catch {
    // A child killed by the heap writes nothing: shown as 0 MB beside its exit code.
  }
  const lines = stderr.trim().split('\n');
  const said = lines.find((line) => /limit|past|more than|deep|longer than|over \d+ MiB/.test(line)) ?? lines.at(-1) ?? '';
  return { ms, rssMb: rssKb / 1024, exitCode, said: said.slice(0, 140) };
}

/** A server that streams 64 KiB pieces without a space or a break, forever. */
async function endlessServer(): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const piece = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'x'.repeat(64 * 1024) }, finish_reason: null }] })}\n\n`;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const pump = () => {
        while (!res.destroyed && res.write(piece));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export async function hostileFigures(): Promise<HostileFigure[]> {
  const figures: HostileFigure[] = [];
  const cases: { name: string; limit: string; spec: string; args?: string[] }[] = [
    { name: 'template: for i in range(1000000000)', limit: 'list 1,000,000 items', spec: withInput('{% for i in range(n) %}x{% endfor %}') },
    { name: 'template: nested range(100000) loops', limit: 'loops 200,000 iterations', spec: withInput('{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}') },
    { name: 'template: 1,000-character pad 100,000 times', limit: 'output 64 Mi characters', spec: withInput('{% set s = topic | center(1000) %}{% for i in range(100000) %}{{ s }}{% endfor %}') },
    { name: "template: replace on 3 MB in a loop", limit: 'render 5 s', spec: withInput("{% set s = topic | center(3000000) %}{% for i in range(150000) %}{{ s | replace('zz', 'y') | length }}{% endfor %}") },
    { name: 'template: a macro calling itself', limit: 'macros 100 deep', spec: withInput('{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}') },
    { name: 'template: a string doubled 40 times', limit: 'output 64 Mi characters', spec: withInput(`{% set s = 'ab' %}${'{% set s = s ~ s %}'.repeat(40)}{{ s }}`) },
    { name: 'spec: 4 MiB of 1.5 million values (validate)', limit: '50,000 values', spec: `${head}        input: "go"\ntags: [${Array.from({ length: 1_500_000 }, () => '1').join(',')}]\n`, args: ['validate', 'spec.yaml'] },
    { name: 'spec: 49,000 values, just within (validate)', limit: '50,000 values', spec: `${head}        input: "go"\nzzz_padding:\n${Array.from({ length: 24_500 }, (_, i) => `  k${i}: v\n`).join('')}`, args: ['validate', 'spec.yaml'] },
    { name: 'spec: one 4 MiB string (validate)', limit: '4 MiB file', spec: `${head}        input: "go"\nzzz_note: "${'a'.repeat(4 * 1024 * 1024 - 400)}"\n`, args: ['validate', 'spec.yaml'] },
    { name: 'spec: a 4 MiB template input (run)', limit: '4 MiB file', spec: withInput(`{{ topic }} ${'a'.repeat(4 * 1024 * 1024 - 400)}`) },
  ];
  for (const c of cases) {
    const dir = mkdtempSync(join(tmpdir(), 'acode-bench-hostile-'));
    try {
      writeFileSync(join(dir, 'spec.yaml'), c.spec);
      figures.push({ name: c.name, limit: c.limit, ...(await measure(dir, c.args ?? ['run', 'spec.yaml'])) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const server = await endlessServer();
  const dir = mkdtempSync(join(tmpdir(), 'acode-bench-hostile-'));
  try {
    writeFileSync(join(dir, 'spec.yaml'), openAiSpec(server.baseUrl));
    // The same endless answer in every output mode: plain lines, --json, and --stream into nowhere, into
    // a reader that keeps up, and into one that reads nothing for 5 s (acode then stops reading the server).
    const streams: { mode: string; flags: string[]; stdout: Stdout }[] = [
      { mode: 'plain lines', flags: [], stdout: 'ignore' },
      { mode: '--json into a pipe', flags: ['--json'], stdout: 'pipe' },
      { mode: '--stream to /dev/null', flags: ['--stream'], stdout: 'ignore' },
      { mode: '--stream into a pipe', flags: ['--stream'], stdout: 'pipe' },
      { mode: '--stream, pipe read 5 s late', flags: ['--stream'], stdout: { lateMs: 5000 } },
    ];
    for (const { mode, flags, stdout } of streams) {
      const name = `stream: endless answer, ${mode}`;
      figures.push({ name, limit: 'answer 64 MiB', ...(await measure(dir, ['run', 'spec.yaml', '--no-auto-resume', ...flags], { OPENAI_API_KEY: 'sk-bench-not-a-key-0123456789' }, stdout)) });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
  return figures;
}
