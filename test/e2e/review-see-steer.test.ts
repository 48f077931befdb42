import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chainSpec } from '../helpers/chain-spec.js';
import { runCli } from '../helpers/cli.js';
import { openAiServerPerTest } from '../helpers/openai-server.js';
import { parseAllSessionFiles } from '../helpers/session-files.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Review of the see-and-steer slices (#14) by a hostile user: each test is a defect it found, red before its fix. */

function workspace(spec = chainSpec({ steps: 2, provider: 'scripted' }).replace(/outputs:[\s\S]*$/, '')) {
  const cwd = tempDir();
  const home = join(cwd, 'home');
  writeFileSync(join(cwd, 'spec.yaml'), spec);
  return { cwd, home, env: { ACODE_HOME: home } as Record<string, string> };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const openai = openAiServerPerTest();

describe('hostile review of #14: names, cleanup, init, schema', () => {
  // FIXED: source/store/session-names.ts: a claim whose session never came to be was judged live by its pid alone, so a reused pid
  // (or another host's claim) held the name forever and the error's advice ('acode sessions delete <name>') failed. A claim now
  // records its creator's host and process start time and when it was made; without its session folder it stands only while
  // that very process runs and for at most 60 s, and is otherwise taken over (under a guard, so no fresh claim is unlinked).
  it('a name claim left by a dead creator whose pid now belongs to another process does not hold the name forever', async () => {
    const ws = workspace();
    mkdirSync(join(ws.home, 'names'), { recursive: true });
    // The claim file as a creator killed between the claim and its folder leaves it; its pid is now this (unrelated) test process.
    writeFileSync(join(ws.home, 'names', 'ghost'), `0123456789abcdef ${process.pid}\n`);
    const deleted = await runCli(['sessions', 'delete', 'ghost', '--force'], ws);
    expect(deleted.stderr).not.toContain("did you mean 'ghost'");
    const run = await runCli(['run', 'spec.yaml', '--name', 'ghost'], ws);
    expect(run.stderr).not.toContain('taken by session 0123456789abcdef');
    expect(run.code).toBe(0);
  });

  // FIXED: source/store/session-names.ts (all): 'did you mean' offered every claim file, stale ones too, so a name whose session
  // is gone was suggested as the fix for itself; it now offers only names whose session exists.
  it('a name whose session is gone is not suggested for itself', async () => {
    const ws = workspace();
    expect((await runCli(['run', 'spec.yaml', '--name', 'gone'], ws)).code).toBe(0);
    const [id] = readdirSync(join(ws.home, 'sessions')).filter((entry) => !entry.startsWith('.'));
    rmSync(join(ws.home, 'sessions', id!), { recursive: true, force: true });
    const shown = await runCli(['sessions', 'show', 'gone'], ws);
    expect(shown.code).toBe(1); // ACODE-RESUME-005, as for an id that matches nothing
    expect(shown.stderr).not.toContain("did you mean 'gone'");
  });

  // FIXED: source/engine/fork-plan.ts: the range offered ends at the session's last step when every step completed (it offered
  // one past it: 'fork <2-step session> --from-step 3' was refused with "--from-step must be between 1 and 3").
  it('fork --from-step past the last step names a range that holds only real steps', async () => {
    const ws = workspace();
    expect((await runCli(['run', 'spec.yaml', '--name', 'done'], ws)).code).toBe(0);
    const refused = await runCli(['fork', 'done', '--from-step', '3'], ws);
    expect(refused.code).toBe(2);
    expect(refused.stderr).not.toContain('between 1 and 3');
    expect(refused.stderr).toContain('between 1 and 2');
  });

  // FIXED: source/command-table.ts (commandFlags) + completion.ts: every command completed every long flag of the CLI, so Tab
  // after 'acode sessions cleanup --' offered --step, --from-step and --name, flags cleanup refuses. The table now lists each
  // command's flags; bash, zsh and fish offer a command only its own, and misplaced-flag refusals name the same table's commands.
  it('bash completion offers a command only the flags it takes', async () => {
    const ws = workspace();
    const script = await runCli(['completion', 'bash'], ws);
    writeFileSync(join(ws.cwd, 'acode.bash'), script.stdout);
    const words = ['acode', 'sessions', 'cleanup', '--'];
    const probe = `source acode.bash; COMP_WORDS=(${words.join(' ')}); COMP_CWORD=${words.length - 1}; _acode; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const completed = await new Promise<string>((resolve, reject) =>
      execFile('bash', ['-c', probe], { cwd: ws.cwd }, (error, stdout) => (error ? reject(error) : resolve(stdout))),
    );
    const offered = completed.split('\n').filter(Boolean);
    expect(offered).toContain('--older-than');
    for (const flag of offered) {
      const tried = await runCli(['sessions', 'cleanup', '--dry-run', flag, ...(['--dry-run', '--help', '--version'].includes(flag) || flag.startsWith('--no-') ? [] : ['1'])], ws);
      expect(tried.stderr, flag).not.toMatch(/is an option of acode/);
    }
  });

  // FIXED: source/commands/user-file.ts: --out onto a directory (or into a missing one) is a usage error naming the path (it crashed
  // with a Node stack trace, exit 1); the schema is written whole (temp file, then rename) or not at all.
  it('acode schema --out onto a directory exits 2 with a clear error, no stack trace', async () => {
    const ws = workspace();
    mkdirSync(join(ws.cwd, 'schemas'));
    const result = await runCli(['schema', '--out', 'schemas'], ws);
    expect(result.stderr).not.toContain('at schemaCommand');
    expect(result.stderr).toContain('schemas');
    expect(result.code).toBe(2);
  });

  // FIXED: source/commands/init.ts + user-file.ts: a file in a folder that does not exist is a usage error naming the folder (it
  // crashed with a Node stack trace, exit 1); the starter is linked into place, never through a dangling symlink without --force.
  it('acode init into a missing folder exits 2 with a clear error, no stack trace', async () => {
    const ws = workspace();
    const result = await runCli(['init', 'nowhere/spec.yaml'], ws);
    expect(result.stderr).not.toContain('at initCommand');
    expect(result.stderr).toContain('nowhere');
    expect(result.code).toBe(2);
  });

  // FIXED: source/commands/init.ts: the printed command named 'my spec.yaml' bare: two words to a shell.
  it('acode init prints a run command that works as printed for a name with a space', async () => {
    const ws = workspace();
    const result = await runCli(['init', 'my spec.yaml'], ws);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`run it: acode run 'my spec.yaml' --var topic="durable agents"`);
  });

  // FIXED: source/commands/user-file.ts: a path through a file (afile/x.yaml) was refused, then removing the temporary file
  // threw ENOTDIR from the finally block: a Node stack trace, exit 1, in place of the refusal.
  it('acode init and schema --out through a file exit 2 naming it, no stack trace, nothing written', async () => {
    const ws = workspace();
    writeFileSync(join(ws.cwd, 'afile'), 'kept\n');
    for (const args of [['init', 'afile/x.yaml'], ['schema', '--out', 'afile/s.json']]) {
      const result = await runCli(args, ws);
      expect(result.stderr, args.join(' ')).toContain('afile passes through a file');
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(result.code).toBe(2);
    }
    expect(readFileSync(join(ws.cwd, 'afile'), 'utf8')).toBe('kept\n');
  });

  // FIXED: source/argument-typos.ts: a negative age read as an unknown flag ('Unknown flag\n-5d', naming neither --older-than nor
  // what an age is); a value starting with '-' after --older-than is now refused as not an age, with what an age looks like.
  it('sessions cleanup --older-than -5d says what an age is', async () => {
    const ws = workspace();
    const result = await runCli(['sessions', 'cleanup', '--older-than', '-5d', '--dry-run'], ws);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--older-than');
  });
});

describe('hostile review of #14: the model check before a resume', () => {
  // FIXED: source/providers/model-list.ts: fetch followed redirects, and on a cross-origin redirect fetch drops only
  // Authorization — the Anthropic check's x-api-key went to whatever host the redirect named. The check no longer follows
  // redirects (redirect: 'manual'): a 3xx is reported as 'not checked … a redirect to X', and no key leaves.
  it('the Anthropic model check never sends the API key to another origin a redirect names', async () => {
    const key = 'sk-ant-test-secret-key-0123456789';
    const seenElsewhere: IncomingHttpHeaders[] = [];
    const elsewhere = await listen((req, res) => {
      seenElsewhere.push(req.headers);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'model', id: 'test-model', display_name: 'x', created_at: '2025-01-01T00:00:00Z' }));
    });
    const origin = await listen((req, res) => {
      if (req.method === 'GET') return void res.writeHead(307, { location: `${elsewhere.replace('127.0.0.1', 'localhost')}${req.url}` }).end();
      req.resume();
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }));
    });
    const ws = workspace(chainSpec({ steps: 2, provider: 'anthropic', host: origin }));
    ws.env.ANTHROPIC_API_KEY = key;
    expect((await runCli(['run', 'spec.yaml'], ws)).code).toBe(1);
    const [record] = parseAllSessionFiles(ws.home);
    await runCli(['resume', record!.session_id, '--dry-run'], ws);
    for (const headers of seenElsewhere) expect(headers['x-api-key']).toBeUndefined();
    expect(seenElsewhere).toHaveLength(0);
  });

  // FIXED: source/session/model-check.ts: model ids a server lists were printed as sent; every server-provided string the
  // model check prints (ids, error details, redirect targets) is now stripped of ESC sequences and C0/C1 controls.
  it('model ids a server lists are printed without their control characters', async () => {
    const { server, baseUrl } = openai.current();
    const root = baseUrl.replace(/\/v1$/, '');
    const ws = workspace(chainSpec({ steps: 2, provider: 'ollama', host: root }));
    let refused = false;
    server.handler = () => (refused ? { kind: 'answer' } : ((refused = true), { kind: 'error', status: 401, body: { error: { message: 'bad key', code: 'invalid_api_key' } } }));
    expect((await runCli(['run', 'spec.yaml'], ws)).code).toBe(1);
    const [record] = parseAllSessionFiles(ws.home);
    server.models = ['\u001b]0;pwned\u0007\u001b[2Jqwen2.5:latest'];
    const refusedResume = await runCli(['resume', record!.session_id], ws);
    expect(refusedResume.code).toBe(17);
    expect(refusedResume.stderr).toContain('qwen2.5:latest');
    expect(refusedResume.stderr).not.toContain('\u001b');
    expect(refusedResume.stderr).not.toContain('\u0007');
  });

  // FIXED: source/commands/resume.ts (the plan's model line): a model list that echoes the API key was redacted in the exit-17
  // error but not in `resume --dry-run`; modelLine (and the listed ids themselves) now go through the redactor.
  it('resume --dry-run never prints the API key a server echoes in its model list', async () => {
    const { server, baseUrl } = openai.current();
    const key = 'sk-proj-abcdefghijklmnop0123456789';
    const ws = workspace(chainSpec({ steps: 2, provider: 'openai', host: baseUrl }));
    ws.env.OPENAI_API_KEY = key;
    let refused = false;
    server.handler = () => (refused ? { kind: 'answer' } : ((refused = true), { kind: 'error', status: 401, body: { error: { message: 'bad key', code: 'invalid_api_key' } } }));
    expect((await runCli(['run', 'spec.yaml'], ws)).code).toBe(1);
    const [record] = parseAllSessionFiles(ws.home);
    server.models = [`echo-${key.slice(3, 20)}`, 'gpt-4o'];
    const refusedResume = await runCli(['resume', record!.session_id], ws);
    expect(refusedResume.stderr).not.toContain(key.slice(3, 20)); // the error redacts it
    const dry = await runCli(['resume', record!.session_id, '--dry-run'], ws);
    expect(dry.code).toBe(17); // as the resume would: its refusal, redacted, on stderr
    expect(dry.stdout).toContain('model:           test-model not offered');
    expect(dry.stdout + dry.stderr).not.toContain(key.slice(3, 20));
  });

  // FIXED: source/session/model-check.ts (modelLine): '…' was added whenever five models were shown; it now shows only when the
  // server lists more than the five shown.
  it('a server offering exactly five models is not said to offer more', async () => {
    const { server, baseUrl } = openai.current();
    const root = baseUrl.replace(/\/v1$/, '');
    const ws = workspace(chainSpec({ steps: 2, provider: 'ollama', host: root }));
    let refused = false;
    server.handler = () => (refused ? { kind: 'answer' } : ((refused = true), { kind: 'error', status: 401, body: { error: { message: 'bad key', code: 'invalid_api_key' } } }));
    expect((await runCli(['run', 'spec.yaml'], ws)).code).toBe(1);
    const [record] = parseAllSessionFiles(ws.home);
    server.models = ['a:latest', 'b:latest', 'c:latest', 'd:latest', 'e:latest'];
    const result = await runCli(['resume', record!.session_id], ws);
    expect(result.code).toBe(17);
    expect(result.stderr).toContain('(it offers a:latest, b:latest, c:latest, d:latest, e:latest)');
  });
});

describe('hostile review of #14: what a step cost', () => {
  // Was a defect (fixed: sessions show and the step view price a step call by call, step-results.ts `calls`): a step was priced
  // on the sum of its model calls' tokens, but price tiers apply per request (Claude Sonnet 4.5: $3/M input up to 200k tokens a request,
  // $6/M above). Two calls of 150k input tokens each cost 2 × $0.45 = $0.90; sessions show prices the 300k sum at the long-context
  // rate, $1.80 — twice what the run itself said ('this run ≈ $0.90', priced per call).
  it('a step of two 150k-token calls is priced per call, as the run priced it', async () => {
    const origin = await listen((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      req.on('end', () => {
        // The model check at run start asks for the model list: this server has none, as some do not.
        if (req.method !== 'POST') return void res.writeHead(404).end();
        const body = JSON.parse(raw || '{}') as { model: string; messages: { role: string; content: unknown }[] };
        const answered = body.messages.some((m) => Array.isArray(m.content) && (m.content as { type: string }[]).some((b) => b.type === 'tool_result'));
        const content = answered ? [{ type: 'text', text: 'the notes say hello' }] : [{ type: 'tool_use', id: 'toolu_1', name: 'file_read', input: { path: 'notes.txt' } }];
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({ id: 'msg_1', type: 'message', role: 'assistant', model: body.model, content, stop_reason: answered ? 'end_turn' : 'tool_use', stop_sequence: null, usage: { input_tokens: 150_000, output_tokens: 0 } }),
        );
      });
    });
    const spec = [
      'version: 0',
      'name: priced',
      'runtime:',
      '  provider: anthropic',
      '  model_id: claude-sonnet-4-5',
      `  host: ${origin}`,
      'agents:',
      '  worker: { prompt: "You read notes.", tools: [file_read] }',
      'pattern:',
      '  type: chain',
      '  config:',
      '    steps:',
      '      - { agent: worker, input: "read notes.txt" }',
      '',
    ].join('\n');
    const ws = workspace(spec);
    writeFileSync(join(ws.cwd, 'notes.txt'), 'hello\n');
    ws.env.ANTHROPIC_API_KEY = 'sk-ant-test-key-0123456789';
    const run = await runCli(['run', 'spec.yaml'], ws);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('this run ≈ $0.90');
    const [record] = parseAllSessionFiles(ws.home);
    const shown = JSON.parse((await runCli(['sessions', 'show', record!.session_id, '--json'], ws)).stdout) as { dollars: number; steps: { dollars: number }[] };
    expect(shown.steps[0]!.dollars).toBeCloseTo(0.9, 6);
    expect(shown.dollars).toBeCloseTo(0.9, 6);
  });
});
