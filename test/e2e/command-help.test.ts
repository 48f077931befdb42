import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chainSpec } from '../helpers/chain-spec.js';
import { runCli } from '../helpers/cli.js';
import { snapshotFolder } from '../helpers/folder-snapshot.js';
import { tempDir } from '../helpers/temp-dir.js';

const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

function workspace() {
  const cwd = tempDir();
  const home = join(cwd, 'home');
  writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps: 3, provider: 'scripted', scripted: '  scripted:\n    faults:\n      - { step: 1, kind: crash }' }));
  return { cwd, home, env: { ACODE_HOME: home } };
}

/** A workspace whose home holds one session killed mid-run: the one `acode resume` would pick. */
async function withInterruptedSession() {
  const ws = workspace();
  const crashed = await runCli(['run', 'spec.yaml'], ws);
  expect(crashed.signal).toBe('SIGKILL');
  return ws;
}

/** What each command's usage starts its Usage section with, and a flag only it lists. */
const commands: [args: string[], usage: string, flag: string][] = [
  [['run'], '$ acode run <spec.yaml>', '--no-save-session'],
  [['run', 'spec.yaml'], '$ acode run <spec.yaml>', '--var k=v'],
  [['resume'], '$ acode resume [<id>]', '--strategy S'],
  [['fork', 'abcd'], '$ acode fork <id>', '--from-step S'],
  [['validate', 'spec.yaml'], '$ acode validate <spec.yaml>', 'file:line:column'],
  [['sessions'], '$ acode sessions unlock <id>', "'acode sessions <command> --help'"],
  [['sessions', 'list'], '$ acode sessions list', '--resumable'],
  [['sessions', 'show', 'abcd'], '$ acode sessions show <id>', 'whole session record'],
  [['sessions', 'history', 'abcd'], '$ acode sessions history <id>', 'replay order'],
  [['sessions', 'delete', 'abcd'], '$ acode sessions delete <id>', '--force'],
  [['sessions', 'unlock', 'abcd'], '$ acode sessions unlock <id>', '--force'],
  [['sessions', 'cleanup'], '$ acode sessions cleanup', '--older-than A'],
  [['init'], '$ acode init [<file>]', '--provider P'],
  [['schema'], '$ acode schema [--out <file>]', 'yaml-language-server'],
  [['completion'], '$ acode completion bash|zsh|fish', 'source <(acode completion bash)'],
];

describe('acode <command> --help', () => {
  it.each(commands)('acode %j --help and -h print that command\'s usage, exit 0 and create no ACODE_HOME', async (args, usage, flag) => {
    const ws = workspace();
    for (const help of ['--help', '-h']) {
      const result = await runCli([...args, help], ws);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(usage);
      expect(result.stdout).toContain(flag);
      expect(result.stdout).toContain('Usage');
      expect(result.stderr).toBe('');
    }
    expect(existsSync(ws.home)).toBe(false);
  });

  it.each(['resume --help', 'resume -h', 'resume <id> --help', 'run --resume <id> --help', 'sessions delete <id> --force -h', 'sessions unlock <id> --force --help', 'fork <id> --help', 'sessions list --help'])(
    'acode %s resumes, deletes, unlocks and writes nothing: the home is byte-identical',
    async (command) => {
      const ws = await withInterruptedSession();
      const id = readdirSync(join(ws.home, 'sessions'))[0]!;
      const before = snapshotFolder(ws.home);
      const result = await runCli(command.split(' ').map((a) => (a === '<id>' ? id : a)), ws);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('Usage');
      expect(result.stderr).toBe('');
      // The killed run's lock, its log and the index are exactly as the crash left them.
      expect(snapshotFolder(ws.home)).toEqual(before);
    },
  );

  it('prints the top-level usage for acode --help and acode -h', async () => {
    const ws = workspace();
    for (const help of ['--help', '-h']) {
      const result = await runCli([help], ws);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('$ acode resume [<id>]');
      expect(result.stdout).toContain('Exit codes');
      // Once: meow printed package.json's description above the help's own.
      expect(result.stdout.match(/Durable multi-step AI-agent workflows/g)).toHaveLength(1);
    }
  });

  it('prints the version for -v and --version', async () => {
    const ws = workspace();
    for (const flag of ['-v', '--version']) {
      const result = await runCli([flag], ws);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.trim()).toBe(version);
    }
    expect(existsSync(ws.home)).toBe(false);
  });

  it('keeps unknown flags and commands usage errors (exit 2), with or without --help', async () => {
    const ws = workspace();
    for (const args of [['resume', '--bogus'], ['frobnicate', '--help'], ['sessions', 'frobnicate', '-h'], ['run', 'spec.yaml', '--help', '--bogus']]) {
      const result = await runCli(args, ws);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
    }
    expect(existsSync(ws.home)).toBe(false);
  });
});
