import { cliFlags, commandFlags, commandNames, completionShells, flagsOf, initProviders, sessionsCommandNames, typedFlag, valueFlags, type FlagName } from '../command-table.js';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { sessionStatuses } from '../session/status-words.js';
import type { CommandContext } from './command-context.js';

type Shell = (typeof completionShells)[number];

/** The values a flag takes, when they are a fixed list: `--strategy rollback|retry|prompt`. */
function flagValues(): [flag: string, values: readonly string[]][] {
  const fixed = (Object.keys(cliFlags) as FlagName[]).flatMap((name): [string, readonly string[]][] => {
    const flag = cliFlags[name];
    return 'choices' in flag ? [[typedFlag(name)[0]!, flag.choices]] : [];
  });
  // --status takes a status (sessions list) or several, comma-separated (cleanup): each is offered.
  return [...fixed, ['--provider', initProviders], ['--status', sessionStatuses]];
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

/** Value flags whose value is a file. */
const fileValueFlags = ['--out'];

/**
 * bash. Flags may come anywhere (`acode sessions --json show <id>`), so the command and its
 * arguments are the words that are neither flags nor a flag's value; bash splits `--flag=value`
 * at the `=`.
 */
function bash(): string {
  const valueCases = flagValues().map(([flag, values]) => `      ${flag}) COMPREPLY=( $(compgen -W "${values.join(' ')}" -- "$cur") ) ;;`).join('\n');
  return `# acode completion for bash: source <(acode completion bash), or save it to ~/.local/share/bash-completion/completions/acode
_acode() {
  # bash splits a word at each '=' (--var k=v is four words): joined again as typed, where COMP_LINE has no space between.
  local typed=() line="\${COMP_LINE:0:COMP_POINT}" i w
  # (Called with COMP_WORDS alone, as by hand: the words as they are.)
  if [[ -z "\${COMP_LINE+set}" ]]; then line="\${COMP_WORDS[*]}"; fi
  for (( i = 0; i <= COMP_CWORD; i++ )); do
    w="\${COMP_WORDS[i]}"
    if (( i > 0 )) && [[ "$line" != [[:space:]]* ]]; then typed[\${#typed[@]}-1]+="$w"; else typed+=("$w"); fi
    line="\${line#"\${line%%[![:space:]]*}"}"
    line="\${line:\${#w}}"
  done
  local cur="\${typed[\${#typed[@]}-1]}" prev="\${typed[\${#typed[@]}-2]}" flag=
  # A flag's value is being typed: --flag value, --flag=value (bash completes what follows the last '=').
  if [[ "$cur" == --*=* ]]; then flag="\${cur%%=*}"; cur="\${COMP_WORDS[COMP_CWORD]}"; [[ "$cur" == "=" ]] && cur=
  elif [[ " ${valueFlags.join(' ')} " == *" $prev "* ]]; then flag="$prev"; fi
  if [[ -n "$flag" ]]; then
    case "$flag" in
${valueCases}
      ${fileValueFlags.join('|')}) COMPREPLY=( $(compgen -f -- "$cur") ) ;;
      # An id, a name, a number, text: nothing to offer, not even files.
      *) compopt +o default 2>/dev/null; COMPREPLY=() ;;
    esac
    return
  fi
  # The command and its arguments: the words that are neither flags nor a flag's value.
  local words=() resume=
  for (( i = 1; i < \${#typed[@]} - 1; i++ )); do
    w="\${typed[i]}"
    if [[ "$w" == --resume || "$w" == --resume=* ]]; then resume=1; fi
    if [[ " ${valueFlags.join(' ')} " == *" $w "* ]]; then (( i++ ))
    elif [[ "$w" != -* ]]; then words+=("$w"); fi
  done
  local command="\${words[0]}"
  if [[ "$command" == sessions ]]; then command="sessions \${words[1]:-list}"
  elif [[ "$command" == run && -n "$resume" ]]; then command="run --resume"; fi
  if [[ "$cur" == -* ]]; then
    # Only the flags the command takes.
    local flags="--help --version"
    case "$command" in
${flagCases('      ', (command, flags) => `"${command}") flags="${flags}" ;;`)}
    esac
    COMPREPLY=( $(compgen -W "$flags" -- "$cur") ); return
  fi
  case "\${#words[@]} \${words[0]}" in
    "0 ") COMPREPLY=( $(compgen -W "${commandNames.join(' ')}" -- "$cur") ); return ;;
    "1 sessions") COMPREPLY=( $(compgen -W "${sessionsCommandNames.join(' ')}" -- "$cur") ); return ;;
    "1 completion") COMPREPLY=( $(compgen -W "${completionShells.join(' ')}" -- "$cur") ); return ;;
  esac
  if [[ \${#words[@]} == 1 && " ${fileCommands.join(' ')} " == *" \${words[0]} "* && "$command" != "run --resume" ]]; then
    COMPREPLY=( $(compgen -f -- "$cur") ); return
  fi
  # A session's id or name, or nothing more: no file names.
  compopt +o default 2>/dev/null
  COMPREPLY=()
}
complete -o default -F _acode acode acode-tui
`;
}

/** zsh: as bash (flags anywhere; the command and its arguments are the other words); `--flag=value` is one word. */
function zsh(): string {
  const valueCases = flagValues().map(([flag, values]) => `      ${flag}) compadd -- ${values.join(' ')} ;;`).join('\n');
  return `#compdef acode acode-tui
# acode completion for zsh: source <(acode completion zsh) after compinit, or save it as _acode on your $fpath
_acode() {
  local cur="\${words[CURRENT]}" flag=
  # A flag's value is being typed: --flag value, or --flag=value (one word).
  if [[ "$cur" == --*=* ]]; then flag="\${cur%%=*}"; compset -P '*='
  elif [[ " ${valueFlags.join(' ')} " == *" \${words[CURRENT-1]} "* ]]; then flag="\${words[CURRENT-1]}"; fi
  if [[ -n "$flag" ]]; then
    case "$flag" in
${valueCases}
      ${fileValueFlags.join('|')}) _files ;;
    esac
    return
  fi
  # The command and its arguments: the words that are neither flags nor a flag's value.
  local -a args
  local i w resume=
  for (( i = 2; i < CURRENT; i++ )); do
    w="\${words[i]}"
    if [[ "$w" == --resume || "$w" == --resume=* ]]; then resume=1; fi
    if [[ " ${valueFlags.join(' ')} " == *" $w "* ]]; then (( i++ ))
    elif [[ "$w" != -* ]]; then args+=("$w"); fi
  done
  local command="\${args[1]}"
  if [[ "$command" == sessions ]]; then command="sessions \${args[2]:-list}"
  elif [[ "$command" == run && -n "$resume" ]]; then command="run --resume"; fi
  if [[ "$cur" == -* ]]; then
    # Only the flags the command takes.
    case "$command" in
${flagCases('      ', (command, flags) => `"${command}") compadd -- ${flags}; return ;;`)}
    esac
    compadd -- --help --version; return
  fi
  case "\${#args} \${args[1]}" in
    "0 ") compadd -- ${commandNames.join(' ')} ;;
    "1 sessions") compadd -- ${sessionsCommandNames.join(' ')} ;;
    "1 completion") compadd -- ${completionShells.join(' ')} ;;
    "1 run") if [[ -z "$resume" ]]; then _files; fi ;;
    ${fileCommands.filter((c) => c !== 'run').map((c) => `"1 ${c}"`).join('|')}) _files ;;
  esac
}
compdef _acode acode acode-tui
`;
}

/**
 * fish: the command a line is completed as is worked out from its words, as bash and zsh do — flags
 * anywhere, the command and its arguments the other words (fish's __fish_seen_subcommand_from
 * matched a word anywhere: a session named `show` got --step).
 */
function fish(): string {
  const lines = [
    '# acode completion for fish: acode completion fish > ~/.config/fish/completions/acode.fish',
    '# The words typed before this one that are neither flags nor a flag\'s value: the command and its arguments.',
    'function __acode_args',
    '    set -l skip 0',
    '    for w in (commandline -opc)[2..-1]',
    '        if test $skip -eq 1',
    '            set skip 0',
    '        else if contains -- $w ' + valueFlags.join(' '),
    '            set skip 1',
    "        else if not string match -q -- '-*' $w",
    '            echo $w',
    '        end',
    '    end',
    'end',
    '# The command being completed, as acode reads it: `sessions <sub>` (`sessions` alone is `sessions list`), `run --resume` for a resume.',
    'function __acode_command',
    '    set -l args (__acode_args)',
    '    set -l command $args[1]',
    '    if test "$command" = sessions',
    '        set -q args[2]; and set command "sessions $args[2]"; or set command "sessions list"',
    "    else if test \"$command\" = run; and string match -q -r -- '^--resume(=|$)' (commandline -opc)",
    "        set command 'run --resume'",
    '    end',
    '    echo $command',
    'end',
    '# The first argument of one of the commands given is being typed.',
    'function __acode_argument_of',
    '    set -l args (__acode_args)',
    '    test (count $args) -eq 1; and contains -- $args[1] $argv',
    'end',
    'complete -c acode -f',
    `complete -c acode -n 'test (count (__acode_args)) -eq 0' -a '${commandNames.join(' ')}'`,
    `complete -c acode -n '__acode_argument_of sessions' -a '${sessionsCommandNames.join(' ')}'`,
    `complete -c acode -n '__acode_argument_of completion' -a '${completionShells.join(' ')}'`,
    `complete -c acode -n '__acode_argument_of ${fileCommands.join(' ')}; and test (__acode_command) != "run --resume"' -F`,
  ];
  const values = new Map(flagValues());
  for (const name of Object.keys(cliFlags) as FlagName[]) {
    // A flag is offered after the commands that take it.
    const takers = completedCommands.filter((command) => offeredFlags(command).includes(typedFlag(name)[0]!));
    const when = name === 'help' || name === 'version' ? '' : ` -n 'contains -- (__acode_command) ${takers.map((command) => `"${command}"`).join(' ')}'`;
    for (const flag of typedFlag(name)) {
      const choices = values.get(flag);
      // A value flag takes the next word: a file for --out, one of its choices, or the user's own (nothing offered).
      const value = fileValueFlags.includes(flag) ? ' -r -F' : choices ? ` -x -a '${choices.join(' ')}'` : valueFlags.includes(flag) ? ' -x' : '';
      lines.push(`complete -c acode${when} -l ${flag.slice(2)}${value}`);
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
