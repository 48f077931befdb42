import { cliFlags, commandFlags, commandNames, completionShells, flagsOf, initProviders, sessionsCommandNames, typedFlag, type FlagName } from '../command-table.js';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import type { CommandContext } from './command-context.js';

type Shell = (typeof completionShells)[number];

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The values a flag takes, when they are a fixed list: `--strategy rollback|retry|prompt`. */
function flagValues(): [flag: string, values: readonly string[]][] {
  const fixed: [string, readonly string[]][] = Object.entries(cliFlags).flatMap(([name, flag]) => ('choices' in flag ? [[`--${kebab(name)}`, flag.choices] as [string, readonly string[]]] : []));
  return [...fixed, ['--provider', initProviders]];
}

/**
 * What a command line is completed as: a key of the command table, and `run --resume` — a resume,
 * whose flags a new run refuses (`run spec.yaml --dry-run`), as `run` without --resume refuses them.
 */
const completedCommands = [...Object.keys(commandFlags), 'run --resume'];

/** The long flags offered after `command` (a key of completedCommands), --help and --version with them. */
function offeredFlags(command: string): string[] {
  const [name, resume] = command.split(' --');
  return [...flagsOf(name!, resume !== undefined), 'help', 'version'].flatMap((flag) => typedFlag(flag as FlagName));
}

/** Each command's flags, as a shell `case` (`run) flags="--var …" ;;`); any other word gets --help and --version. */
function flagCases(indent: string, line: (command: string, flags: string) => string): string {
  return completedCommands.map((command) => `${indent}${line(command, offeredFlags(command).join(' '))}`).join('\n');
}

/** Commands whose argument is a file. */
const fileCommands = ['run', 'validate', 'init'];

function bash(): string {
  const valueCases = flagValues().map(([flag, values]) => `    ${flag}) COMPREPLY=( $(compgen -W "${values.join(' ')}" -- "$cur") ); return ;;`).join('\n');
  return `# acode completion for bash: source <(acode completion bash), or save it to ~/.local/share/bash-completion/completions/acode
_acode() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  case "$prev" in
${valueCases}
  esac
  if [[ "$cur" == -* ]]; then
    # Only the flags the command takes: 'sessions' alone is 'sessions list'.
    local command="\${COMP_WORDS[1]}" flags="--help --version"
    if [[ "$command" == sessions ]]; then
      local sub="\${COMP_WORDS[2]}"
      if [[ -z "$sub" || "$sub" == -* ]]; then sub=list; fi
      command="sessions $sub"
    elif [[ "$command" == run && " \${COMP_WORDS[*]} " == *" --resume"[=[:space:]]* ]]; then
      command="run --resume"
    fi
    case "$command" in
${flagCases('      ', (command, flags) => `"${command}") flags="${flags}" ;;`)}
    esac
    COMPREPLY=( $(compgen -W "$flags" -- "$cur") ); return
  fi
  if (( COMP_CWORD == 1 )); then
    COMPREPLY=( $(compgen -W "${commandNames.join(' ')}" -- "$cur") ); return
  fi
  case "\${COMP_WORDS[1]}" in
    sessions) if (( COMP_CWORD == 2 )); then COMPREPLY=( $(compgen -W "${sessionsCommandNames.join(' ')}" -- "$cur") ); return; fi ;;
    completion) COMPREPLY=( $(compgen -W "${completionShells.join(' ')}" -- "$cur") ); return ;;
    ${fileCommands.join('|')}) COMPREPLY=( $(compgen -f -- "$cur") ); return ;;
  esac
  COMPREPLY=()
}
complete -o default -F _acode acode acode-tui
`;
}

function zsh(): string {
  const valueCases = flagValues().map(([flag, values]) => `    ${flag}) compadd -- ${values.join(' ')}; return ;;`).join('\n');
  return `#compdef acode acode-tui
# acode completion for zsh: source <(acode completion zsh) after compinit, or save it as _acode on your $fpath
_acode() {
  case "\${words[CURRENT-1]}" in
${valueCases}
  esac
  if [[ "\${words[CURRENT]}" == -* ]]; then
    # Only the flags the command takes: 'sessions' alone is 'sessions list'.
    local command="\${words[2]}" sub
    if [[ "$command" == sessions ]]; then
      sub="\${words[3]}"
      if [[ -z "$sub" || "$sub" == -* ]]; then sub=list; fi
      command="sessions $sub"
    elif [[ "$command" == run && " \${words[*]} " == *" --resume"[=[:space:]]* ]]; then
      command="run --resume"
    fi
    case "$command" in
${flagCases('      ', (command, flags) => `"${command}") compadd -- ${flags}; return ;;`)}
    esac
    compadd -- --help --version; return
  fi
  if (( CURRENT == 2 )); then
    compadd -- ${commandNames.join(' ')}; return
  fi
  case "\${words[2]}" in
    sessions) if (( CURRENT == 3 )); then compadd -- ${sessionsCommandNames.join(' ')}; return; fi ;;
    completion) compadd -- ${completionShells.join(' ')}; return ;;
    ${fileCommands.join('|')}) _files; return ;;
  esac
}
compdef _acode acode acode-tui
`;
}

/**
 * fish: the command a line is completed as is worked out from the words' places, as bash and zsh do
 * (fish's __fish_seen_subcommand_from matches a word anywhere: a session named `show` got --step).
 */
function fish(): string {
  const lines = [
    '# acode completion for fish: acode completion fish > ~/.config/fish/completions/acode.fish',
    '# The command being completed, as acode reads it: `sessions <sub>` (`sessions` alone is `sessions list`), `run --resume` for a resume.',
    'function __acode_command',
    '    set -l words (commandline -opc)',
    '    set -l command $words[2]',
    '    set -l sub list',
    '    if test "$command" = sessions',
    "        if set -q words[3]; and not string match -q -- '-*' $words[3]",
    '            set sub $words[3]',
    '        end',
    '        set command "sessions $sub"',
    "    else if test \"$command\" = run; and string match -q -r -- '^--resume(=|$)' $words",
    "        set command 'run --resume'",
    '    end',
    '    echo $command',
    'end',
    '# The first argument of one of the commands given is being typed.',
    'function __acode_argument_of',
    '    set -l words (commandline -opc)',
    '    test (count $words) -eq 2; and contains -- $words[2] $argv',
    'end',
    '# The command is one of those given.',
    'function __acode_after',
    '    set -l words (commandline -opc)',
    '    set -q words[2]; and contains -- $words[2] $argv',
    'end',
    'complete -c acode -f',
    `complete -c acode -n 'test (count (commandline -opc)) -eq 1' -a '${commandNames.join(' ')}'`,
    `complete -c acode -n '__acode_argument_of sessions' -a '${sessionsCommandNames.join(' ')}'`,
    `complete -c acode -n '__acode_argument_of completion' -a '${completionShells.join(' ')}'`,
    `complete -c acode -n '__acode_after ${fileCommands.join(' ')}' -F`,
  ];
  const values = new Map(flagValues());
  for (const name of Object.keys(cliFlags) as FlagName[]) {
    // A flag is offered after the commands that take it.
    const takers = completedCommands.filter((command) => offeredFlags(command).includes(typedFlag(name)[0]!));
    const when = name === 'help' || name === 'version' ? '' : ` -n 'contains -- (__acode_command) ${takers.map((command) => `"${command}"`).join(' ')}'`;
    for (const flag of typedFlag(name)) {
      const choices = values.get(flag);
      lines.push(`complete -c acode${when} -l ${flag.slice(2)}${choices ? ` -x -a '${choices.join(' ')}'` : ''}`);
    }
  }
  lines.push('complete -c acode-tui -w acode');
  return `${lines.join('\n')}\n`;
}

const scripts: Record<Shell, () => string> = { bash, zsh, fish };

/** `acode completion bash|zsh|fish`: a script completing commands, subcommands, flags and their values. */
export function completionCommand(ctx: CommandContext, shell: string | undefined): ExitCode {
  if (shell === undefined || !(completionShells as readonly string[]).includes(shell)) {
    throw new AcodeError(`${shell === undefined ? 'missing the shell' : `no completion for '${shell}'`}: acode completion ${completionShells.join('|')}`, ExitCode.usage);
  }
  ctx.stdout.write(scripts[shell as Shell]());
  return ExitCode.ok;
}
