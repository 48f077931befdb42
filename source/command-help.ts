/**
 * Each command's own usage, printed by `acode <command> --help` (or -h) instead of running it, and
 * the help text of every flag, written once: the top-level help (cli-dispatch.ts) and each
 * command's usage list the same lines from `flagLines`.
 */

import { sessionStatuses } from './session/status-words.js';
import { commandFlags } from './command-table.js';

const flagHelp = {
  var: `    --var k=v            run: set a template variable (repeatable); overrides inputs.values.
                         resume, fork: give back a variable the session stored without its value
                         (it held a key, or text shaped like one, which acode keeps out of its files)`,
  out: `    --out <dir>          where artifacts are written (default ./artifacts); kept for resume`,
  force: `    --force              run, resume: artifacts may overwrite a file this session did not write;
                         delete, unlock: without asking`,
  name: `    --name <name>        run, fork: a name for the new session, unique in $ACODE_HOME; resume, show,
                         fork, delete and the browser's search take it wherever an id is taken`,
  saveSession: `    --no-save-session    run without writing a session (nothing to resume)`,
  offline: `    --offline            run: do not ask the provider, before anything is created, whether it offers
                         the spec's models (the scripted provider has none to ask)`,
  autoResume: `    --no-auto-resume     pause at the first rate limit, context overflow or provider failure instead
                         of waiting and retrying (default: up to resume.max_attempts, 5, in a row)`,
  approve: `    --approve            answer the approval step the session reaches with its default response`,
  response: `    --response "…"       answer it with this response instead`,
  reject: `    --reject             reject it: the session is cancelled`,
  set: `    --set K=N            resume: raise a limit the session stopped at — runtime.budgets.max_steps,
                         max_tokens, max_duration_s, max_cost_usd; a graph's pattern.config.max_iterations`,
  dryRun: `    --dry-run            resume: show the continuation plan, changed files and model check; fork: the
                         steps it would reuse and why the others run; run nothing, change nothing`,
  yes: `    --yes                resume even if files the session touched changed (= --on-change continue),
                         or the provider does not offer a model it needs, or cannot be asked`,
  onChange: `    --on-change A        files changed since the session stopped: prompt (terminal), continue, abort
                         (default: prompt on a terminal, abort otherwise; resume.changed_files_action)`,
  strategy: `    --strategy S         a write torn by the crash: rollback (restore its snapshot), retry (leave it),
                         prompt (ask); a python_exec or non-GET http_request it cut off: rollback (take it
                         as not done), retry (run it again), prompt (ask); default resume.in_progress_strategy (rollback)`,
  spec: `    --spec <file>        fork: run this edited spec; a completed step whose prompt as rendered, agent,
                         model and tools are unchanged is reused, the others run`,
  fromStep: `    --from-step S        fork: run again from step S, named as every view shows it — a chain's number,
                         a task id, branch/n (n from 1), reduce; completed steps not depending on it are reused`,
  step: `    --step S             sessions show: one step's whole response and tool calls — its name as every
                         view shows it: a chain's number, a task id, branch/n (n from 1), reduce`,
  status: `    --status S           ${sessionStatuses.join(' | ')}`,
  resumable: `    --resumable          only sessions that can be resumed now`,
  limit: `    --limit N            sessions list: only the N newest (of those the other options keep)`,
  here: `    --here               sessions list: only sessions that ran in the current folder (the browser's
                         "this directory")`,
  json: `    --json               print one JSON object (or array) on stdout`,
  cwd: `    --cwd <dir>          resume: the folder a session pulled from the team store runs in here (default:
                         the folder it ran in, when this machine has it, else the current one)`,
  stream: `    --stream             without a terminal: each step's answer on stdout as it arrives (progress
                         lines stay on stderr); a terminal's run view always shows it streaming`,
} as const;

/** The help lines of these flags, in this order. */
export function flagLines(...names: (keyof typeof flagHelp)[]): string {
  return names.map((name) => flagHelp[name]).join('\n');
}

// The flags `acode resume` takes (command-table.ts), so its help never leaves one out.
const resumeOptions = `\n${flagLines(...(commandFlags.resume as (keyof typeof flagHelp)[]))}`;

const idNote = `  <id> may be any unique prefix of at least 4 characters, or the session's --name (see 'acode sessions list').`;

const usages = {
  run: `
  Run a workflow spec as a new session; prints the session id first, then one line per step.

  Usage
    $ acode run <spec.yaml> [--var k=v]… [--name <name>] [--out <dir>] [--force] [--no-save-session] [--no-auto-resume]
                [--approve | --response "…" | --reject] [--stream | --json]
    $ acode run --resume <id> [resume options]   same as acode resume <id>

  Options
${flagLines('var', 'name', 'out', 'force', 'saveSession', 'offline', 'autoResume', 'approve', 'response', 'reject', 'stream')}
    --resume <id>        resume session <id> instead (see 'acode resume --help')
    --json               print one JSON object on stdout once the run ends: {session_id, name,
                         workflow_name, status, steps_total, steps_executed, steps_skipped, tokens,
                         dollars (null without a price), artifacts}; errors as {"error": {code, exit, message}} on stderr

  Examples
    $ acode run examples/chain-3-step-resume-demo.yaml --var topic="AI agents"
    $ acode run spec.yaml --name nightly-report   then: acode resume nightly-report
    $ acode run spec.yaml --json | jq .status
    $ acode run spec.yaml --stream > answers.txt
`,
  resume: `
  Resume the most recent interrupted session, or <id>: completed steps are skipped, the step that
  was cut short is checked and continued. With a team store (ACODE_REMOTE_URL), a session this home
  lacks is pulled from it first (another machine ran it), and a session another machine's process
  holds is refused (exit 16, naming that host); the store being unreachable stops no resume.

  Usage
    $ acode resume [<id>] [options]

  Options${resumeOptions}

${idNote}

  Examples
    $ acode resume
    $ acode resume 3f2a --dry-run
    $ acode resume 3f2a --yes --strategy retry
    $ acode resume 3f2a9c1e07b4d2aa --cwd ~/src/project --yes   a session pulled from the team store
`,
  fork: `
  Start a new session from <id> (any status, also completed or failed), reusing its completed steps
  that do not depend on step S and running the rest again. With --spec, the new session runs the
  edited spec: each completed step whose input is unchanged is reused, the others run.

  Usage
    $ acode fork <id> [--spec <file>] [--from-step S] [--dry-run] [--name <name>] [--var k=v]… [--json]

  Options
    --spec <file>        run this spec (an edited copy of <id>'s) instead of <id>'s own; a completed
                         step is reused when its prompt as rendered, agent, model and tools hash to
                         what they were, which it decides as the run reaches it (with --from-step,
                         only among the steps that do not depend on S)
    --from-step S        run again from step S: in a chain its number (1-based), the steps before it
                         reused; in a workflow a task id, every completed task not downstream of it
                         reused; in a parallel run branch/n (n from 1) or reduce, the other branches
                         and the steps before it in its branch reused. 'acode sessions show <id>'
                         lists the names (default: the first unfinished step)
    --dry-run            list the steps the fork would reuse and why each other one runs; create nothing
    --name <name>        a name for the new session (unique in $ACODE_HOME)
    --var k=v            give back a variable <id> stored without its value (it held a key, or text
                         shaped like one, which acode keeps out of its files)
    --json               print one JSON object on stdout

${idNote}

  Examples
    $ acode fork 3f2a
    $ acode fork 3f2a --from-step 2
    $ acode fork 3f2a --from-step technical
    $ acode fork 3f2a --from-step web_research/1
    $ acode fork 3f2a --spec edited.yaml --dry-run
    $ acode fork 3f2a --spec edited.yaml
`,
  validate: `
  Check a workflow spec without running it; each problem names file:line:column.

  Usage
    $ acode validate <spec.yaml> [--json]

  Options
    --json               print {file, valid, pattern, provider, problems: [{file, line, column, message,
                         severity}]} on stdout (exit 2 still when a problem is an error)

  Examples
    $ acode validate examples/chain-3-step-resume-demo.yaml
    $ acode validate spec.yaml --json | jq '.problems[] | select(.severity == "error")'
`,
  init: `
  Write a starter workflow spec: a two-step chain (research, then a report) to run or edit. It
  refuses to replace a file unless --force.

  Usage
    $ acode init [<file>] [--provider scripted|openai|ollama] [--force] [--json]

  Options
    --provider P         scripted (default: offline, no key needed), openai (OPENAI_API_KEY), ollama
    --force              replace <file> if it exists
    --json               print {file, path, provider} of the file written on stdout

  <file> defaults to workflow.yaml.

  Examples
    $ acode init && acode run workflow.yaml
    $ acode init research.yaml --provider ollama
`,
  completion: `
  Print a shell completion script: commands, sessions subcommands, each command's own flags, and the values of flags
  that take a fixed list.

  Usage
    $ acode completion bash|zsh|fish

  Examples
    $ source <(acode completion bash)                  # add to ~/.bashrc
    $ source <(acode completion zsh)                   # in ~/.zshrc, after compinit
    $ acode completion fish > ~/.config/fish/completions/acode.fish
`,
  schema: `
  Print the JSON Schema of workflow specs (draft-07), generated from the schema acode validates
  with, for editor completion and checks. The package ships it as schema/acode-spec.schema.json.

  Usage
    $ acode schema [--out <file>]

  Options
    --out <file>         write it to <file> instead of stdout

  Examples
    $ acode schema --out acode-spec.schema.json
    then, on a spec's first line: # yaml-language-server: $schema=acode-spec.schema.json
`,
  status: `
  Whether the sessions have reached the team store (PostgreSQL, see ACODE_REMOTE_URL): up to date,
  or DEGRADED with the events still pending, the last attempt and why it failed. Pending events are
  pushed first, for 3 s at most (no connection when none are); the rest is read from local files,
  whether the store is reachable or not.

  Usage
    $ acode status [<id>] [--json]

  Options
    --json               print {remote, state, pending_events, last_attempt, sessions: [{session_id,
                         pending_events}]} on stdout

${idNote}

  Examples
    $ acode status
    $ acode status --json | jq .pending_events
`,
  sync: `
  Push every session's pending events, and the file snapshots they name, to the team store now:
  in (timestamp, event id) order, each event once, only events replay keeps (never a late line of a
  superseded lock holder). Prints what each session sent; exits 1 saying why when the store cannot
  be reached (nothing local changes then).

  Usage
    $ acode sync

  The store is the postgres:// URL in ACODE_REMOTE_URL (or the variable remote.url_env names in
  config.yml); run 'acode remote init' once first.

  Examples
    $ ACODE_REMOTE_URL=postgres://acode:secret@db.example:5432/acode acode sync
`,
  remote: `
  Create the team store's schema in the PostgreSQL database ACODE_REMOTE_URL names, or migrate it to
  this acode's version. Safe to run again; refuses a schema newer than this acode knows.

  Usage
    $ acode remote init

  Examples
    $ ACODE_REMOTE_URL=postgres://acode:secret@db.example:5432/acode acode remote init
`,
  sessions: `
  Manage the sessions stored in $ACODE_HOME.

  Usage
    $ acode sessions list [--status S] [--resumable | --remote] [--here] [--limit N] [--json]
    $ acode sessions show <id> [--step S] [--json]
    $ acode sessions history <id> [--json]
    $ acode sessions delete <id> [--force] [--json]
    $ acode sessions unlock <id> [--force]
    $ acode sessions cleanup [--older-than 30d] [--status S,S…] [--dry-run] [--yes] [--json]

  'acode sessions <command> --help' describes one of them.
`,
  'sessions list': `
  List the stored sessions, newest first, each with the folder it ran in (~ for your home).

  Usage
    $ acode sessions list [--status S] [--resumable | --remote] [--here] [--limit N] [--json]

  Options
${flagHelp.status}
    --resumable          only sessions that can be resumed now
${flagHelp.here}
${flagHelp.limit}
    --remote             the sessions the team store holds (ACODE_REMOTE_URL), from every machine, with
                         the host each last ran on and how many of its events are there; read and
                         printed a page at a time (this home's pending events pushed first)
    --json               print an array of session summaries on stdout

  Examples
    $ acode sessions list --resumable
    $ acode sessions list --limit 5
    $ acode sessions list --here --resumable
    $ acode sessions list --status failed --json | jq '.[].session_id'
`,
  'sessions show': `
  Show one session: status, lock, progress, tokens, spec, working directory, artifacts, and every
  step: its state, attempt, time, tokens (summed over all its model calls; "≈ $" when the model's
  price is known) and the first line of its response.

  Usage
    $ acode sessions show <id> [--step S] [--json]

  Options
${flagLines('step')}
    --json               print the whole session record on stdout (with --step: that step)

${idNote}

  Examples
    $ acode sessions show 3f2a
    $ acode sessions show 3f2a --step 2
    $ acode sessions show 3f2a --step web_research/1 --json | jq -r .response
`,
  'sessions history': `
  Print a session's event log in replay order (timestamp, event id).

  Usage
    $ acode sessions history <id> [--json]

  Options
    --json               print the events as a JSON array on stdout

${idNote}

  Examples
    $ acode sessions history 3f2a | less
`,
  'sessions delete': `
  Delete a session and its event log. Asks first on a terminal; refuses while a live process runs it.

  Usage
    $ acode sessions delete <id> [--force] [--json]

  Options
    --force              delete without asking, even while the session is locked
    --json               print {session_id, deleted} on stdout (deleted: the id, or null when kept)

${idNote}

  Examples
    $ acode sessions delete 3f2a --force
`,
  'sessions unlock': `
  Remove a session's lock, left by a process that can no longer release it. Asks first when its
  owner still runs.

  Usage
    $ acode sessions unlock <id> [--force]

  Options
    --force              remove the lock without asking, even if its owner still runs

${idNote}

  Examples
    $ acode sessions unlock 3f2a
`,
  'sessions cleanup': `
  Delete old sessions: those whose status is listed and that were last updated longer ago than the
  age. Lists them first; asks on a terminal, needs --yes without one. A session a live process runs
  is never deleted. Defaults come from retention.* in $ACODE_HOME/config.yml and .acode/config.yml
  (older_than: 30d, status: [completed, failed, cancelled]); nothing is deleted unless you run this.

  Usage
    $ acode sessions cleanup [--older-than 30d] [--status S,S…] [--dry-run] [--yes] [--json]

  Options
    --older-than A       last updated more than A ago: 90m, 12h, 30d, 2w (default retention.older_than)
    --status S,S…        only these statuses (default retention.status: completed, failed, cancelled)
    --dry-run            list what would be deleted; delete nothing
    --yes                delete without asking (needed without a terminal)
    --json               print {dry_run, sessions: [{session_id, name, workflow_name, status,
                         updated_at}], kept: [{session_id, why}]} on stdout: the sessions deleted
                         (with --dry-run: those it would delete)

  Examples
    $ acode sessions cleanup --dry-run
    $ acode sessions cleanup --older-than 7d --status failed,cancelled --yes
`,
} as const;

export type HelpTopic = keyof typeof usages;

/** The usage of `command` (and a `sessions` subcommand), or undefined for a command acode does not have. */
export function commandUsage(command: string, sub?: string): string | undefined {
  const topic = command === 'sessions' && sub !== undefined ? `sessions ${sub}` : command;
  return Object.hasOwn(usages, topic) ? usages[topic as HelpTopic] : undefined;
}
