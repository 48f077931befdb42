import { execFile, execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { commandNames, sessionsCommandNames } from '../../source/command-table.js';
import { cliPath, runCli, startCli } from '../helpers/cli.js';
import { openAiServerPerTest } from '../helpers/openai-server.js';
import { skipWithout } from '../helpers/programs.js';
import { tempDir } from '../helpers/temp-dir.js';

function workspace() {
  const cwd = tempDir();
  const home = join(cwd, 'home');
  return { cwd, home, env: { ACODE_HOME: home } };
}

const fixture = openAiServerPerTest();
const examples = fileURLToPath(new URL('../../examples', import.meta.url));

describe('did you mean', () => {
  it.each([
    [['resum'], "unknown command 'resum' — did you mean 'resume'?"],
    [['sessions', 'clenup'], "unknown sessions command 'clenup' — did you mean 'cleanup'?"],
    [['run', 'spec.yaml', '--nmae', 'x'], "unknown flag '--nmae' — did you mean '--name'?"],
    [['resume', '--dryrun'], "unknown flag '--dryrun' — did you mean '--dry-run'?"],
    [['resum', '--help'], "unknown command 'resum' — did you mean 'resume'?"],
    [['resume', '--name', 'nightly'], "--name is an option of acode run and acode fork, not of acode resume; to pick a session by its name, give the name where the id goes: 'acode resume <name>'"],
    [['sessions', 'list', '--older-than', '3d'], '--older-than is an option of acode sessions cleanup'],
  ])('acode %j names the closest command or flag, exits 2 and writes nothing', async (args, message) => {
    const ws = workspace();
    const result = await runCli(args, ws);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(existsSync(ws.home)).toBe(false);
  });

  it.each([
    [['run', 'spec.yaml', '--dry-run'], "--dry-run shows what a resume would do ('acode resume <id> --dry-run'), and a new run has nothing to resume; to check a spec without running it: 'acode validate <spec.yaml>'"],
    [['run', 'spec.yaml', '--yes', '--strategy', 'retry'], "--yes answers a resume's questions, and a new run asks none: give it to 'acode resume <id>'"],
    [['run', 'spec.yaml', '--on-change', 'abort'], "--on-change answers a resume's questions"],
    [['fork', 'base', '--yes'], '--yes is an option of acode run --resume, acode resume and acode sessions cleanup, not of acode fork'],
    [['fork', 'base', '--stream'], '--stream is an option of acode run and acode resume, not of acode fork'],
    [['validate', 'spec.yaml', '--var', 'topic=x'], '--var is an option of acode run, acode resume and acode fork, not of acode validate'],
    [['run', '--resume', 'base', '--no-save-session'], '--no-save-session is chosen when a session starts (acode run); a resume saves the session it resumes'],
    [['resume', 'base', '--out', 'elsewhere'], "--out is chosen when a session starts (acode run); a resume writes to the session's own output folder"],
    [['run', 'spec.yaml', '--resume', 'base'], 'acode run --resume takes no spec file, got spec.yaml: the session runs the spec it started with'],
    [['run', 'spec.yaml', '--resume='], "--resume needs the session to resume: 'acode run --resume <id or name>'"],
    // The parser takes a flag after a flag that wants a value as nothing at all: the flag after it was never checked.
    [['run', 'spec.yaml', '--force', '--out', '--dry-run'], "--out needs a value: --out <value> (one that starts with a dash is written --out=--dry-run)"],
    [['run', 'spec.yaml', '--var'], '--var needs a value: --var <value>'],
    // A flag that takes no value, given one the parser reads as false: `--dry-run=yes` resumed for real, `cleanup --dry-run=1 --yes` deleted.
    [['resume', 'base', '--dry-run=yes'], '--dry-run takes no value: write --dry-run alone (or --dry-run=true / --dry-run=false): nothing was run'],
    [['sessions', 'cleanup', '--dry-run=1', '--yes'], '--dry-run takes no value'],
    [['sessions', 'list', '--json=on'], '--json takes no value'],
    // Words past the one a command takes were ignored: `sessions delete a b` deleted a alone.
    [['sessions', 'delete', 'base', 'other', '--force'], 'acode sessions delete takes one session id, got 2: base other'],
    [['fork', 'base', 'other'], 'acode fork takes one session, got 2: base other'],
    [['sessions', 'list', 'base'], "acode sessions list takes no session id: 'acode sessions show base' shows one"],
    [['run', 'spec.yaml', '--response', '-foo'], '--response needs a value: --response <value> (one that starts with a dash is written --response=-foo)'],
    // `acode` alone opened the browser (or printed the help) whatever flags came with it.
    [['--json'], '--json is an option of acode run, acode resume, acode fork, acode validate, acode sessions list, acode sessions show, acode sessions history, acode sessions delete, acode sessions cleanup, acode status and acode init, not of acode alone (the session browser takes no options)'],
    [['--resume', 'base'], '--resume is an option of acode run, not of acode alone'],
    // --yes won: the resume went on over the changed file, and --dry-run said it would ask.
    [['resume', 'base', '--yes', '--on-change', 'abort'], '--yes goes on past changed files, and --on-change abort says otherwise: give one of them'],
    [['run', '--resume', 'base', '--yes', '--on-change=prompt'], '--yes goes on past changed files, and --on-change prompt says otherwise'],
  ])('acode %j refuses what its command does not take (a flag, a second argument), before running anything', async (args, message) => {
    const ws = workspace();
    writeFileSync(join(ws.cwd, 'spec.yaml'), readFileSync(join(examples, 'chain-3-step-resume-demo.yaml'), 'utf8'));
    const result = await runCli(args, ws);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(existsSync(ws.home)).toBe(false);
  });

  it('takes a flag value that starts with a dash as the value, not a flag', async () => {
    const ws = workspace();
    const result = await runCli(['run', 'missing.yaml', '--var', '-x=1'], ws);
    expect(result.stderr).not.toContain('unknown flag');
  });
});

describe('acode init', () => {
  it('writes a scripted starter that runs offline to completion', async () => {
    const ws = workspace();
    const init = await runCli(['init'], ws);
    expect(init.code).toBe(0);
    expect(init.stderr).toContain('run it: acode run workflow.yaml');
    const text = readFileSync(join(ws.cwd, 'workflow.yaml'), 'utf8');
    // The schema reference resolves from where the file was written.
    const ref = /^# yaml-language-server: \$schema=(.+)$/m.exec(text)![1]!;
    expect(existsSync(join(ws.cwd, ref))).toBe(true);
    const run = await runCli(['run', 'workflow.yaml', '--json'], ws);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'completed', steps_total: 2, steps_executed: 2 });
  });

  it('writes an openai starter that runs against an OpenAI-compatible server', async () => {
    const ws = workspace();
    expect((await runCli(['init', 'research.yaml', '--provider', 'openai'], ws)).code).toBe(0);
    const { server, baseUrl } = fixture.current();
    const run = await runCli(['run', 'research.yaml', '--json'], { cwd: ws.cwd, env: { ...ws.env, OPENAI_BASE_URL: baseUrl, OPENAI_API_KEY: 'sk-test-init' } });
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests.map((r) => r.body.model)).toEqual(['gpt-4o-mini', 'gpt-4o-mini']);
  });

  it('writes an ollama starter that validates', async () => {
    const ws = workspace();
    expect((await runCli(['init', 'local.yaml', '--provider', 'ollama'], ws)).code).toBe(0);
    const result = await runCli(['validate', 'local.yaml'], ws);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('provider ollama');
  });

  it('never replaces a file without --force, and refuses an unknown provider', async () => {
    const ws = workspace();
    writeFileSync(join(ws.cwd, 'workflow.yaml'), 'mine');
    const refused = await runCli(['init'], ws);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('workflow.yaml exists');
    expect(readFileSync(join(ws.cwd, 'workflow.yaml'), 'utf8')).toBe('mine');
    expect((await runCli(['init', '--force'], ws)).code).toBe(0);
    expect(readFileSync(join(ws.cwd, 'workflow.yaml'), 'utf8')).toContain('name: starter-chain');
    expect((await runCli(['init', 'x.yaml', '--provider', 'gemini'], ws)).code).toBe(2);
    expect(existsSync(join(ws.cwd, 'x.yaml'))).toBe(false);
  });

  it('never writes through a dangling symlink without --force, and --force replaces the link itself', async () => {
    const ws = workspace();
    symlinkSync(join(ws.cwd, 'elsewhere.yaml'), join(ws.cwd, 'link.yaml'));
    const refused = await runCli(['init', 'link.yaml'], ws);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('link.yaml exists');
    expect(existsSync(join(ws.cwd, 'elsewhere.yaml'))).toBe(false);
    expect((await runCli(['init', 'link.yaml', '--force'], ws)).code).toBe(0);
    expect(lstatSync(join(ws.cwd, 'link.yaml')).isSymbolicLink()).toBe(false);
    expect(existsSync(join(ws.cwd, 'elsewhere.yaml'))).toBe(false);
    // Nothing half-written is left beside it.
    expect(readdirSync(ws.cwd).filter((entry) => entry.endsWith('.tmp'))).toEqual([]);
  });
});

describe('acode schema', () => {
  it('prints the committed schema file', async () => {
    const result = await runCli(['schema'], workspace());
    expect(result.stdout).toBe(readFileSync(new URL('../../schema/acode-spec.schema.json', import.meta.url), 'utf8'));
  });
});

describe('acode completion', () => {
  /**
   * What the bash completion offers for `line` (the cursor at its end), its words split as bash splits
   * them — at spaces, and around each '=' (COMP_WORDBREAKS) — and the line itself in COMP_LINE.
   */
  function complete(line: string): string[] {
    const words = line.split(/\s+/).flatMap((token) => token.split(/(=)/).filter(Boolean));
    if (/\s$/.test(line)) words.push('');
    const quoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
    const script = `source <("${process.execPath}" "${cliPath}" completion bash); COMP_LINE=${quoted(line)}; COMP_POINT=${line.length}; COMP_WORDS=(${words.map(quoted).join(' ')}); COMP_CWORD=${words.length - 1}; _acode; echo "\${COMPREPLY[@]}"`;
    return execFileSync('bash', ['-c', script], { encoding: 'utf8' }).trim().split(' ').filter(Boolean);
  }

  it('completes commands, sessions subcommands, flags and flag values in bash', () => {
    expect(complete('acode res')).toEqual(['resume']);
    expect(complete('acode sessions cl')).toEqual(['cleanup']);
    expect(complete('acode run spec.yaml --na')).toEqual(['--name']);
    expect(complete('acode resume --strategy r')).toEqual(['rollback', 'retry']);
    expect(complete('acode init --provider ')).toEqual(['scripted', 'openai', 'ollama']);
    expect(complete('acode sessions list --status p')).toEqual(['paused']);
    expect(complete('acode sessions cleanup --status=c')).toEqual(['created', 'completed', 'cancelled']);
  });

  it("offers run's resume flags only with --resume, in bash", () => {
    expect(complete('acode run spec.yaml --d')).toEqual([]);
    expect(complete('acode run spec.yaml --re')).toEqual(['--response', '--reject', '--resume']);
    expect(complete('acode run --resume abcd --d')).toEqual(['--dry-run']);
    // bash splits --resume=abcd at the '='.
    expect(complete('acode run --resume=abcd --y')).toEqual(['--yes']);
    // --var gives back a variable the session stored without its value (withheld-variables.ts).
    expect(complete('acode run --resume abcd --va')).toEqual(['--var']);
  });

  it('reads the command from the words that are not flags, in bash: flags may come first', () => {
    expect(complete('acode sessions --json show abcd --st')).toEqual(['--step']);
    expect(complete('acode --json sessions show abcd --st')).toEqual(['--step']);
    expect(complete('acode --json ')).toEqual([...commandNames]);
    // A flag's value is not a command: a run named "sessions" is still a run.
    expect(complete('acode run --name sessions --re')).toEqual(['--response', '--reject', '--resume']);
    // --flag=value, split at the '=' by bash.
    expect(complete('acode resume --on-change=')).toEqual(['prompt', 'continue', 'abort']);
    expect(complete('acode init --provider=o')).toEqual(['openai', 'ollama']);
    // Where an id or nothing goes, nothing is offered (the fallback to file names is turned off).
    expect(complete('acode run --resume ')).toEqual([]);
    expect(complete('acode completion bash ')).toEqual([]);
    // A value with '=' in it is split at each by bash: --var k=v is four words, --var=k=v five.
    expect(complete('acode --var k=v run --re')).toEqual(['--response', '--reject', '--resume']);
    expect(complete('acode --var=k=v run --re')).toEqual(['--response', '--reject', '--resume']);
    // An empty value (k=, then a space): the next word is not the value's.
    expect(complete('acode --var k= run --re')).toEqual(['--response', '--reject', '--resume']);
    expect(complete('acode run --var k= --var x=y --for')).toEqual(['--force']);
  });

  /** What fish completes for a command line (`complete -C`), the script loaded as a user's completions file would be. */
  function completeFish(line: string): string[] {
    skipWithout('fish');
    const script = execFileSync(process.execPath, [cliPath, 'completion', 'fish'], { encoding: 'utf8' });
    const dir = tempDir();
    writeFileSync(join(dir, 'acode.fish'), script);
    const out = execFileSync('fish', ['--no-config', '-c', `source ${join(dir, 'acode.fish')}; complete -C ${JSON.stringify(line)}`], { encoding: 'utf8' });
    return out.split('\n').filter(Boolean).map((row) => row.split('\t')[0]!).sort();
  }

  it('completes by where a word is in fish, not by the word: a session named show is not sessions show', () => {
    expect(completeFish('acode resume show --st')).toEqual(['--strategy', '--stream']);
    expect(completeFish('acode sessions show abcd --st')).toEqual(['--step']);
    expect(completeFish('acode sessions --st')).toEqual(['--status']);
    expect(completeFish('acode run spec.yaml --d')).toEqual([]);
    expect(completeFish('acode run --resume abcd --d')).toEqual(['--dry-run']);
    expect(completeFish('acode ')).toEqual([...commandNames].sort());
    expect(completeFish('acode sessions ')).toEqual([...sessionsCommandNames].sort());
    expect(completeFish('acode resume show ')).toEqual([]);
    expect(completeFish('acode resume --strategy r')).toEqual(['retry', 'rollback']);
    // Flags anywhere, a flag's value never taken for a command.
    expect(completeFish('acode sessions --json show abcd --st')).toEqual(['--step']);
    expect(completeFish('acode --json ')).toEqual([...commandNames].sort());
    expect(completeFish('acode run --resume ')).toEqual([]);
    expect(completeFish('acode completion bash ')).toEqual([]);
  });

  it('offers each command its own flags in zsh', () => {
    skipWithout('zsh');
    const script = execFileSync(process.execPath, [cliPath, 'completion', 'zsh'], { encoding: 'utf8' });
    const dir = tempDir();
    writeFileSync(join(dir, '_acode'), script);
    // compadd, compset and _files (zsh's completion builtins) stood in for by ones that print what they were given.
    const offered = (words: string[]) =>
      execFileSync('zsh', ['-fc', `compdef() {}; compset() { PREFIX=\${PREFIX#*=}; }; _files() { print -r -- FILES; }; source ${join(dir, '_acode')}; compadd() { shift; print -r -- "$@"; }; words=(${words.map((w) => `'${w}'`).join(' ')}); CURRENT=${words.length}; _acode`], { encoding: 'utf8' }).trim().split(' ').filter(Boolean);
    expect(offered(['acode', 'run', 'spec.yaml', '--'])).not.toContain('--dry-run');
    expect(offered(['acode', 'run', 'spec.yaml', '--'])).toContain('--var');
    expect(offered(['acode', 'run', '--resume=abcd', '--'])).toContain('--dry-run');
    expect(offered(['acode', 'run', '--resume=abcd', '--'])).not.toContain('--out');
    expect(offered(['acode', 'sessions', '--'])).toContain('--status');
    expect(offered(['acode', 'resume', '--strategy', ''])).toEqual(['rollback', 'retry', 'prompt']);
    expect(offered(['acode', 'resume', '--on-change='])).toEqual(['prompt', 'continue', 'abort']);
    expect(offered(['acode', '--json', 'sessions', 'show', 'abcd', '--'])).toContain('--step');
    expect(offered(['acode', 'run', '--name', 'sessions', ''])).toEqual(['FILES']);
    expect(offered(['acode', 'run', '--resume', ''])).toEqual([]);
  });

  it('prints zsh and fish scripts naming every command, and refuses another shell', async () => {
    const ws = workspace();
    for (const shell of ['zsh', 'fish']) {
      const result = await runCli(['completion', shell], ws);
      expect(result.code).toBe(0);
      for (const command of ['run', 'resume', 'fork', 'sessions', 'cleanup', '--older-than']) expect(result.stdout).toContain(command.replace(/^--/, ''));
    }
    const bad = await runCli(['completion', 'tcsh'], ws);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('acode completion bash|zsh|fish');
  });
});

describe('the README kill instruction', () => {
  it('kill -9 <the pid the run prints> kills that run alone, and acode resume finishes it', async () => {
    const ws = workspace();
    writeFileSync(join(ws.cwd, 'slow.yaml'), readFileSync(new URL('../../examples/chain-3-step-resume-demo.yaml', import.meta.url), 'utf8').replace('latency_ms: 2500', 'latency_ms: 300'));
    const bystander = startCli(['run', 'slow.yaml', '--name', 'bystander'], ws);
    const run = startCli(['run', 'slow.yaml', '--var', 'topic=kill test'], ws);
    const pid = await new Promise<number>((resolve) => run.child.stderr!.on('data', (chunk: Buffer) => {
      const match = /^acode: session [0-9a-f]{16} · chain-resume-demo · pid (\d+)$/m.exec(chunk.toString());
      if (match) resolve(Number(match[1]));
    }));
    expect(pid).toBe(run.child.pid);
    process.kill(pid, 'SIGKILL');
    expect((await run.done).signal).toBe('SIGKILL');
    expect((await bystander.done).code).toBe(0);
    const resumed = await runCli(['resume', '--json'], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'completed' });
  });
});

describe('the demos in a clone', () => {
  it('leave git status clean: everything they write is ignored', async () => {
    const clone = tempDir();
    const repo = new URL('../..', import.meta.url).pathname;
    // The tracked files as they are now (committed or not), so the check sees this .gitignore.
    execFileSync('git', ['init', '-q', clone]);
    for (const file of ['.gitignore', ...execFileSync('git', ['ls-files', 'examples'], { cwd: repo, encoding: 'utf8' }).trim().split('\n')]) {
      execFileSync('mkdir', ['-p', join(clone, file, '..')]);
      writeFileSync(join(clone, file), readFileSync(join(repo, file), 'utf8').replace(/latency_ms: \d+/g, 'latency_ms: 0'));
    }
    execFileSync('git', ['add', '-A'], { cwd: clone });
    execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', 'commit', '-qm', 'clone'], { cwd: clone });
    const ws = { cwd: clone, env: { ACODE_HOME: tempDir() } };
    expect((await runCli(['run', 'examples/chain-3-step-resume-demo.yaml', '--var', 'topic=AI agents'], ws)).code).toBe(0);
    expect((await runCli(['run', 'examples/chain-approval-demo.yaml'], ws)).code).toBe(1);
    expect((await runCli(['resume', '--approve'], ws)).code).toBe(0);
    expect((await runCli(['run', 'examples/agent-files-demo.yaml', '--var', 'topic=durable agents'], ws)).code).toBe(0);
    expect((await runCli(['init'], ws)).code).toBe(0);
    expect(existsSync(join(clone, 'notes.md'))).toBe(true);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: clone, encoding: 'utf8' })).toBe('');
  });
});

describe('acode completion offers each command its own flags', () => {
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

});

describe('acode init and schema --out on paths they cannot write', () => {
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

});
