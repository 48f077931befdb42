import type { AnyFlags } from 'meow';

/**
 * The commands, subcommands and flags acode takes, named once: the argument parser (meow), "did you
 * mean" for a mistyped command or flag, and the shell completion scripts all read this table.
 */

export const commandNames = ['run', 'resume', 'fork', 'validate', 'sessions', 'status', 'sync', 'remote', 'init', 'schema', 'completion'] as const;
export const remoteCommandNames = ['init'] as const;
export const sessionsCommandNames = ['list', 'show', 'history', 'delete', 'unlock', 'cleanup'] as const;
export const completionShells = ['bash', 'zsh', 'fish'] as const;
export const initProviders = ['scripted', 'openai', 'ollama'] as const;

/** meow's flag definitions (camelCase; typed `--kebab-case`). */
export const cliFlags = {
  help: { type: 'boolean', shortFlag: 'h' },
  version: { type: 'boolean', shortFlag: 'v' },
  var: { type: 'string', isMultiple: true, default: [] },
  saveSession: { type: 'boolean', default: true },
  offline: { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  stream: { type: 'boolean', default: false },
  status: { type: 'string' },
  force: { type: 'boolean', default: false },
  resume: { type: 'string' },
  dryRun: { type: 'boolean', default: false },
  resumable: { type: 'boolean', default: false },
  fromStep: { type: 'string' },
  spec: { type: 'string' },
  step: { type: 'string' },
  yes: { type: 'boolean', default: false },
  onChange: { type: 'string', choices: ['prompt', 'continue', 'abort'] },
  strategy: { type: 'string', choices: ['rollback', 'retry', 'prompt'] },
  autoResume: { type: 'boolean' },
  approve: { type: 'boolean' },
  reject: { type: 'boolean' },
  response: { type: 'string' },
  out: { type: 'string' },
  name: { type: 'string' },
  olderThan: { type: 'string' },
  limit: { type: 'string' },
  provider: { type: 'string' },
  set: { type: 'string', isMultiple: true, default: [] },
  remote: { type: 'boolean', default: false },
  here: { type: 'boolean', default: false },
  cwd: { type: 'string' },
} satisfies AnyFlags;

export type FlagName = keyof typeof cliFlags;

const resumeFlagNames = ['var', 'set', 'dryRun', 'yes', 'onChange', 'strategy', 'force', 'autoResume', 'approve', 'response', 'reject', 'stream', 'json', 'cwd'] as const satisfies readonly FlagName[];

/**
 * The flags each command takes (`sessions <sub>` for the sessions commands; --help and --version go
 * with every one): shell completion offers a command these alone, and a flag some commands take is
 * refused elsewhere naming the commands listed here.
 */
export const commandFlags: Record<string, readonly FlagName[]> = {
  run: ['var', 'name', 'out', 'force', 'saveSession', 'offline', 'autoResume', 'approve', 'response', 'reject', 'stream', 'json', 'resume', 'dryRun', 'yes', 'onChange', 'strategy'],
  resume: resumeFlagNames,
  fork: ['spec', 'fromStep', 'dryRun', 'name', 'var', 'json'],
  validate: ['json'],
  'sessions list': ['status', 'resumable', 'remote', 'here', 'limit', 'json'],
  'sessions show': ['step', 'json'],
  'sessions history': ['json'],
  'sessions delete': ['force', 'json'],
  'sessions unlock': ['force'],
  'sessions cleanup': ['olderThan', 'status', 'dryRun', 'yes', 'json'],
  status: ['json'],
  sync: [],
  remote: [],
  init: ['provider', 'force', 'json'],
  schema: ['out'],
  completion: [],
};

/** A resume's own flags: `acode run` takes them with --resume, as `acode resume` does, and a new run refuses them. */
export const resumeOnlyFlagNames = ['dryRun', 'yes', 'onChange', 'strategy'] as const satisfies readonly FlagName[];

/** The flags a command typed takes: `run` with `--resume` is a resume (its flags and --resume), `run` without one takes no resume's flag. */
export function flagsOf(command: string, resuming: boolean): readonly FlagName[] {
  if (command === 'run' && resuming) return [...resumeFlagNames, 'resume'];
  if (command === 'run') return commandFlags.run!.filter((flag) => !(resumeOnlyFlagNames as readonly FlagName[]).includes(flag));
  return commandFlags[command] ?? [];
}

/** The commands (keys of commandFlags) that take `flag`. */
export function commandsTaking(flag: FlagName): string[] {
  return Object.entries(commandFlags).flatMap(([command, flags]) => (flags.includes(flag) ? [command] : []));
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** One flag as typed: `--dry-run`, and `--no-dry-run` for a boolean. */
export function typedFlag(name: FlagName): string[] {
  const long = `--${kebab(name)}`;
  return cliFlags[name].type === 'boolean' && name !== 'help' && name !== 'version' ? [long, `--no-${kebab(name)}`] : [long];
}

/** The long flags followed by a value (`--status done`, `--status=done`): that word is the flag's, not a flag nor a command's. */
export const valueFlags: readonly string[] = (Object.keys(cliFlags) as FlagName[]).filter((name) => cliFlags[name].type === 'string').flatMap(typedFlag);

/** Every long flag as typed (`--dry-run`, and `--no-…` for booleans). */
export function longFlags(): string[] {
  return (Object.keys(cliFlags) as FlagName[]).flatMap(typedFlag);
}

/** Every short flag as typed (`-h`). */
export function shortFlags(): string[] {
  return Object.values(cliFlags).flatMap((flag) => ('shortFlag' in flag ? [`-${flag.shortFlag}`] : []));
}
