import type { AnyFlags } from 'meow';

/**
 * The commands, subcommands and flags acode takes, named once: the argument parser (meow), "did you
 * mean" for a mistyped command or flag, and the shell completion scripts all read this table.
 */

export const commandNames = ['run', 'resume', 'fork', 'validate', 'sessions', 'init', 'schema', 'completion'] as const;
export const sessionsCommandNames = ['list', 'show', 'history', 'delete', 'unlock', 'cleanup'] as const;
export const completionShells = ['bash', 'zsh', 'fish'] as const;
export const initProviders = ['scripted', 'openai', 'ollama'] as const;

/** meow's flag definitions (camelCase; typed `--kebab-case`). */
export const cliFlags = {
  help: { type: 'boolean', shortFlag: 'h' },
  version: { type: 'boolean', shortFlag: 'v' },
  var: { type: 'string', isMultiple: true, default: [] },
  saveSession: { type: 'boolean', default: true },
  json: { type: 'boolean', default: false },
  stream: { type: 'boolean', default: false },
  status: { type: 'string' },
  force: { type: 'boolean', default: false },
  resume: { type: 'string' },
  dryRun: { type: 'boolean', default: false },
  resumable: { type: 'boolean', default: false },
  fromStep: { type: 'string' },
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
  provider: { type: 'string' },
} satisfies AnyFlags;

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** Every long flag as typed (`--dry-run`, and `--no-…` for booleans). */
export function longFlags(): string[] {
  return Object.entries(cliFlags).flatMap(([name, flag]) => {
    const long = `--${kebab(name)}`;
    return flag.type === 'boolean' && name !== 'help' && name !== 'version' ? [long, `--no-${kebab(name)}`] : [long];
  });
}

/** Every short flag as typed (`-h`). */
export function shortFlags(): string[] {
  return Object.values(cliFlags).flatMap((flag) => ('shortFlag' in flag ? [`-${flag.shortFlag}`] : []));
}
