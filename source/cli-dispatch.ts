import meow from 'meow';
import { parseLimitSettings } from './spec/raised-limits.js';
import { typedFlags, unknownFlagMessage } from './argument-typos.js';
import { didYouMean } from './closest-name.js';
import { commandUsage, flagLines } from './command-help.js';
import { cliFlags, commandFlags, commandNames, commandsTaking, flagsOf, remoteCommandNames, resumeOnlyFlagNames, sessionsCommandNames, type FlagName } from './command-table.js';
import type { OnChange } from './commands/changed-files.js';
import type { CommandContext } from './commands/command-context.js';
import type { InProgressStrategy } from './engine/write-recovery.js';
import { AcodeError, ExitCode } from './errors/acode-error.js';

const help = `
  Durable multi-step AI-agent workflows: every finished step is checkpointed, every
  interruption (Ctrl+C, crash, kill -9) resumes where it stopped.

  Usage
    $ acode                              full-screen session browser (in a terminal; also acode-tui)
    $ acode run <spec.yaml> [--var k=v]… [--name <name>] [--out <dir>] [--force] [--no-save-session] [--no-auto-resume]
                 [--stream | --json]
    $ acode run --resume <id>            same as acode resume <id>
    $ acode resume [<id>] [--var k=v]… [--cwd <dir>] [--dry-run] [--yes] [--on-change prompt|continue|abort]
                 [--strategy rollback|retry|prompt] [--no-auto-resume]
                 [--approve | --response "…" | --reject] [--stream | --json]
                                         resume the most recent interrupted session, or <id>
    $ acode fork <id> [--spec <file>] [--from-step S] [--dry-run] [--name <name>] [--var k=v]… [--json]
                                         new session reusing <id>'s completed steps not depending on S,
                                         or (--spec) those whose input the edited spec leaves unchanged
    $ acode sessions list [--status S] [--resumable | --remote] [--here] [--limit N] [--json]
    $ acode sessions show <id> [--step S] [--json]   every step; --step: one step's response and tool calls
    $ acode sessions history <id> [--json]   the event log in replay order
    $ acode sessions delete <id> [--force] [--json]
    $ acode sessions unlock <id> [--force]   remove a session's lock
    $ acode sessions cleanup [--older-than 30d] [--status S,S…] [--dry-run] [--yes] [--json]   delete old sessions
    $ acode validate <spec.yaml> [--json]
    $ acode status [<id>] [--json]       whether the sessions reached the team store (PostgreSQL)
    $ acode sync                         push pending events to the team store now
    $ acode remote init                  create or migrate the team store's schema
    $ acode init [<file>] [--provider scripted|openai|ollama] [--force] [--json]   write a starter spec (workflow.yaml)
    $ acode schema [--out <file>]        the specs' JSON Schema, for editor completion
    $ acode completion bash|zsh|fish     shell completion: source <(acode completion bash)
    $ acode <command> --help             that command's usage (also -h); acode -v prints the version

  Options
${flagLines('var', 'set', 'name', 'out', 'force', 'saveSession', 'offline', 'approve', 'response', 'reject', 'autoResume', 'stream', 'json', 'dryRun', 'yes', 'onChange', 'strategy', 'cwd', 'spec', 'fromStep', 'step', 'status', 'resumable', 'here', 'limit')}

  Sessions live in $ACODE_HOME (default \${XDG_DATA_HOME:-~/.local/share}/acode). With ACODE_REMOTE_URL set
  (postgres://…), runs copy them to a PostgreSQL team store as they go (acode sync: now), and
  acode resume <id> pulls a session another machine ran (16 while a process there still holds it).
  <id> may be any unique prefix of at least 4 characters, or a session's --name. Resume settings (resume.*) are read
  from $ACODE_HOME/config.yml and the project's .acode/config.yml.

  Exit codes
    0 ok · 1 failure or stopped short (paused, awaiting approval) · 2 usage or spec error
    14 no resumable session
    15 session already completed/failed/cancelled · 16 session locked by another process (or machine)
    17 environment validation failed · 130 paused by Ctrl+C

  Examples
    $ acode run examples/chain-3-step-resume-demo.yaml --var topic="AI agents"
    $ acode resume
`;

function parseArguments() {
  const typo = unknownFlagMessage(process.argv.slice(2));
  if (typo) usage(typo);
  try {
    return meow(help, {
      importMeta: import.meta,
      allowUnknownFlags: false,
      // --help and --version are answered by dispatch, after any command, without running it.
      autoHelp: false,
      autoVersion: false,
      // The help text opens with its own description: meow's, from package.json, said it twice.
      description: false,
      // An absent --auto-resume/--no-auto-resume leaves the choice to resume.auto_resume.
      booleanDefault: undefined,
      flags: cliFlags,
    });
  } catch (error) {
    // meow throws for a flag value outside its choices: a usage error, not a bug.
    // meow ends its messages with a period ("… can only be set once."): no clause glued after it.
    // meow names a flag by its key (--olderThan): as typed, it is --older-than.
    const message = (error as Error).message.replace(/\.$/, '').replace(/--([a-z]+(?:[A-Z][a-z]*)+)\b/g, (_, name: string) => `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
    throw new AcodeError(`${message}; see 'acode --help'`, ExitCode.usage);
  }
}


function usage(message: string): never {
  // A question ("did you mean …?") reads badly with a clause glued after it.
  throw new AcodeError(message.endsWith('?') ? `${message} (see 'acode --help')` : `${message}; see 'acode --help'`, ExitCode.usage);
}

/** Where a flag belongs, said when it is given to a command that does not take it. */
const flagHints: Partial<Record<FlagName, string>> = {
  name: `to pick a session by its name, give the name where the id goes: 'acode resume <name>'`,
  olderThan: `'acode sessions cleanup --older-than 30d'`,
  provider: `'acode init --provider openai'`,
  fromStep: `'acode fork <id> --from-step 2' starts a new session from that step`,
  spec: `'acode fork <id> --spec edited.yaml' runs an edited spec, reusing the steps it leaves unchanged`,
  step: `'acode sessions show <id> --step 2' prints that step's response`,
};

/** Why a resume refuses a flag a new run takes: the session chose it when it started. */
const chosenAtStart: Partial<Record<FlagName, string>> = {
  out: `a resume writes to the session's own output folder`,
  saveSession: `a resume saves the session it resumes`,
  offline: `a resume checks the session's models itself ('--yes' goes on past a missing one)`,
};

/** `acode` with no command (the browser, or the help without a terminal): it takes no flag but --help and --version. */
const bare = '';

/**
 * Every flag typed must be one the command takes (the command table): ignored, it would do what the
 * user did not ask — `acode run spec.yaml --dry-run` or `acode fork <id> --dry-run` ran for real,
 * spending real calls. The refusal says where the flag belongs. `command`: as the table names it
 * (`sessions show`); `bare` (no command) takes none; undefined (a command acode does not have, said
 * next) checks only the flags above.
 */
function misplacedFlags(typed: Map<FlagName, string>, command: string | undefined, resuming: boolean): void {
  for (const [flag, spelled] of typed) {
    if (flag === 'help' || flag === 'version') continue;
    const takes = command === undefined ? !(flag in flagHints) : command !== bare && flagsOf(command, resuming).includes(flag);
    if (takes) continue;
    const resumeOnly = (resumeOnlyFlagNames as readonly FlagName[]).includes(flag);
    if (command === 'run' && !resuming && flag === 'dryRun') usage(`--dry-run shows what a resume would do ('acode resume <id> --dry-run'), and a new run has nothing to resume; to check a spec without running it: 'acode validate <spec.yaml>'`);
    if (command === 'run' && !resuming && resumeOnly) usage(`${spelled} answers a resume's questions, and a new run asks none: give it to 'acode resume <id>' (or 'acode run --resume <id>')`);
    if ((command === 'resume' || (command === 'run' && resuming)) && chosenAtStart[flag]) usage(`${spelled} is chosen when a session starts (acode run); ${chosenAtStart[flag]}`);
    const commands = commandsTaking(flag).map((taker) => `acode ${taker === 'run' && resumeOnly ? 'run --resume' : taker}`);
    const listed = commands.length > 1 ? `${commands.slice(0, -1).join(', ')} and ${commands.at(-1)}` : commands[0];
    const not = command === bare ? `, not of acode alone (the session browser takes no options)` : command ? `, not of acode ${command}${command === 'run' && resuming ? ' --resume' : ''}` : '';
    usage(`${spelled} is an option of ${listed}${not}${flagHints[flag] ? `; ${flagHints[flag]}` : ''}`);
  }
}

/** A command of one argument given more: all but the first were ignored (`sessions delete a b` deleted a alone). */
function atMostOne(command: string, args: readonly string[], what: string): void {
  if (args.length > 1) usage(`acode ${command} takes one ${what}, got ${args.length}: ${args.join(' ')}`);
}

function unknownCommand(command: string): never {
  return usage(`unknown command '${command}'${didYouMean(command, commandNames)}`);
}

function unknownSessionsCommand(sub: string): never {
  return usage(`unknown sessions command '${sub}'${didYouMean(sub, sessionsCommandNames)} (${sessionsCommandNames.join(', ')})`);
}

function requireArg(value: string | undefined, what: string): string {
  return value ?? usage(`missing ${what}`);
}

/** --stream and --json both write to stdout: refused before anything is opened. */
function streamOrJson(cli: ReturnType<typeof parseArguments>): void {
  if (cli.flags.stream && cli.flags.json) usage('--stream and --json both write to stdout: use one (--json prints the summary once the run ends)');
}

function resumeFlags(cli: ReturnType<typeof parseArguments>) {
  streamOrJson(cli);
  // --yes goes on past changed files: with --on-change abort (or prompt) one of the two would be ignored.
  if (cli.flags.yes && cli.flags.onChange !== undefined && cli.flags.onChange !== 'continue') {
    usage(`--yes goes on past changed files, and --on-change ${cli.flags.onChange} says otherwise: give one of them (--yes also goes on past a model the provider does not offer)`);
  }
  const { stream } = cli.flags;
  const { json, dryRun, yes, onChange, strategy, autoResume, approve, reject, response, force } = cli.flags;
  return { vars: cli.flags.var, limits: parseLimitSettings(cli.flags.set), json, stream, dryRun, yes, force, onChange: onChange as OnChange | undefined, strategy: strategy as InProgressStrategy | undefined, autoResume, approval: { approve, reject, response }, cwd: cli.flags.cwd };
}

/** Every command but the bare browser: parses the arguments (meow), then runs the command. */
export async function dispatch(context: CommandContext): Promise<ExitCode> {
  const cli = parseArguments();
  const [command, ...args] = cli.input;
  const { flags } = cli;
  if (!flags.help && !flags.version) {
    const sub = command === 'sessions' ? `sessions ${args[0] ?? 'list'}` : (command ?? bare);
    misplacedFlags(typedFlags(process.argv.slice(2)), sub in commandFlags || sub === bare ? sub : undefined, flags.resume !== undefined);
  }
  if (flags.version) {
    context.stdout.write(`${cli.pkg.version ?? 'unknown'}\n`);
    return ExitCode.ok;
  }
  if (flags.help) {
    // Before anything is imported or opened: help never touches a session.
    const text = command === undefined ? cli.help : commandUsage(command, args[0]);
    if (text === undefined) return command === 'sessions' ? unknownSessionsCommand(args[0]!) : unknownCommand(command!);
    context.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    return ExitCode.ok;
  }
  switch (command) {
    case 'run': {
      const { resumeCommand } = await import('./commands/resume.js');
      if (flags.resume !== undefined) {
        if (!flags.resume) usage(`--resume needs the session to resume: 'acode run --resume <id or name>'`);
        // The session runs the spec it started with.
        if (args.length > 0) usage(`acode run --resume takes no spec file, got ${args.join(' ')}: the session runs the spec it started with`);
        return resumeCommand(context, flags.resume, resumeFlags(cli));
      }
      const { runCommand } = await import('./commands/run.js');
      atMostOne('run', args, 'spec file');
      streamOrJson(cli);
      return runCommand(context, requireArg(args[0], 'the spec file: acode run <spec.yaml>'), { vars: flags.var, saveSession: flags.saveSession, json: flags.json, stream: flags.stream, autoResume: flags.autoResume, approval: { approve: flags.approve, reject: flags.reject, response: flags.response }, out: flags.out, force: flags.force, name: flags.name, offline: flags.offline });
    }
    case 'resume': {
      atMostOne('resume', args, 'session');
      const { resumeCommand } = await import('./commands/resume.js');
      return resumeCommand(context, args[0], resumeFlags(cli));
    }
    case 'fork': {
      atMostOne('fork', args, 'session');
      const { forkCommand } = await import('./commands/fork.js');
      return forkCommand(context, requireArg(args[0], 'the session id: acode fork <id>'), { spec: flags.spec, fromStep: flags.fromStep, dryRun: flags.dryRun, json: flags.json, name: flags.name, vars: flags.var });
    }
    case 'validate': {
      const { validateCommand } = await import('./commands/validate.js');
      atMostOne('validate', args, 'spec file');
      return validateCommand(context, requireArg(args[0], 'the spec file: acode validate <spec.yaml>'), { json: flags.json });
    }
    case 'sessions': {
      const [sub, id] = args;
      if (sub === 'show' || sub === 'delete' || sub === 'history' || sub === 'unlock') atMostOne(`sessions ${sub}`, args.slice(1), 'session id');
      if ((sub === 'list' || sub === undefined) && id !== undefined) usage(`acode sessions list takes no session id: 'acode sessions show ${id}' shows one`);
      if ((sub === 'list' || sub === undefined) && flags.remote) {
        // The team store's listing alone: nothing of the local listing's (steps, costs, patterns) is loaded for it.
        const { listRemoteSessions } = await import('./commands/remote-sessions.js');
        return listRemoteSessions(context, { status: flags.status, resumable: flags.resumable, limit: flags.limit, json: flags.json, here: flags.here });
      }
      const sessions = await import('./commands/sessions.js');
      if (sub === 'list' || sub === undefined) return sessions.listSessions(context, { status: flags.status, resumable: flags.resumable, limit: flags.limit, json: flags.json, remote: flags.remote, here: flags.here });
      if (sub === 'show') return sessions.showSession(context, requireArg(id, 'the session id: acode sessions show <id>'), { json: flags.json, step: flags.step });
      if (sub === 'delete') return sessions.deleteSession(context, requireArg(id, 'the session id: acode sessions delete <id>'), { force: flags.force, json: flags.json });
      if (sub === 'history') return sessions.sessionHistory(context, requireArg(id, 'the session id: acode sessions history <id>'), { json: flags.json });
      if (sub === 'cleanup') {
        if (id !== undefined) usage(`acode sessions cleanup takes no session id; choose sessions with --older-than and --status`);
        const { cleanupSessions } = await import('./commands/sessions-cleanup.js');
        return cleanupSessions(context, { olderThan: flags.olderThan, status: flags.status, dryRun: flags.dryRun, yes: flags.yes, json: flags.json });
      }
      if (sub === 'unlock') return sessions.unlockSession(context, requireArg(id, 'the session id: acode sessions unlock <id>'), { force: flags.force });
      return unknownSessionsCommand(sub);
    }
    case 'status': {
      atMostOne('status', args, 'session');
      const { statusCommand } = await import('./commands/sync-status.js');
      return statusCommand(context, args[0], { json: flags.json });
    }
    case 'sync': {
      if (args.length > 0) usage(`acode sync takes no arguments: it pushes every session's pending events`);
      const { syncCommand } = await import('./commands/sync.js');
      return syncCommand(context);
    }
    case 'remote': {
      const [sub, ...rest] = args;
      if (sub === undefined) usage(`missing the remote command: acode remote init`);
      if (sub !== 'init') usage(`unknown remote command '${sub}'${didYouMean(sub, remoteCommandNames)} (${remoteCommandNames.join(', ')})`);
      if (rest.length > 0) usage(`acode remote init takes no arguments, got ${rest.join(' ')}`);
      const { remoteInitCommand } = await import('./commands/remote-init.js');
      return remoteInitCommand(context);
    }
    case 'init': {
      if (args.length > 1) usage(`acode init takes one file name, got ${args.length}: ${args.join(' ')}`);
      const { initCommand } = await import('./commands/init.js');
      return initCommand(context, args[0], { provider: flags.provider, force: flags.force, json: flags.json });
    }
    case 'completion': {
      const { completionCommand } = await import('./commands/completion.js');
      return completionCommand(context, args[0]);
    }
    case 'schema': {
      if (args.length > 0) usage(`acode schema takes no arguments (--out <file> writes it to a file)`);
      const { schemaCommand } = await import('./commands/schema.js');
      return schemaCommand(context, { out: flags.out });
    }
    case undefined: {
      if (!context.interactive) {
        context.stdout.write(cli.help);
        return ExitCode.ok;
      }
      const { browseCommand } = await import('./commands/browse.js');
      return browseCommand(context);
    }
    default:
      return unknownCommand(command);
  }
}

