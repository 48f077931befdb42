/**
 * Each command's own usage, printed by `acode <command> --help` (or -h) instead of running it, and
 * the help text of every flag, written once: the top-level help (cli-dispatch.ts) and each
 * command's usage list the same lines from `flagLines`.
 */

import { sessionStatuses } from './session/status-words.js';

const flagHelp = {
  var: `    --var k=v            set a template variable (repeatable); overrides inputs.values`,
  out: `    --out <dir>          where artifacts are written (default ./artifacts); kept for resume`,
  force: `    --force              run, resume: artifacts may overwrite a file this session did not write;
                         delete, unlock: without asking`,
  saveSession: `    --no-save-session    run without writing a session (nothing to resume)`,
  autoResume: `    --no-auto-resume     pause at the first rate limit, context overflow or provider failure instead
                         of waiting and retrying (default: up to resume.max_attempts, 5, in a row)`,
  approve: `    --approve            answer the approval step the session reaches with its default response`,
  response: `    --response "…"       answer it with this response instead`,
  reject: `    --reject             reject it: the session is cancelled`,
  dryRun: `    --dry-run            show the continuation plan and changed files; run nothing, change nothing`,
  yes: `    --yes                resume even if files the session touched changed (= --on-change continue)`,
  onChange: `    --on-change A        files changed since the session stopped: prompt (terminal), continue, abort
                         (default: prompt on a terminal, abort otherwise; resume.changed_files_action)`,
  strategy: `    --strategy S         a write torn by the crash: rollback (restore its snapshot), retry (leave it),
                         prompt (ask); default resume.in_progress_strategy (rollback)`,
  fromStep: `    --from-step S        fork: run again from step S — a chain's number (1-based) or a step id (a task
                         id, branch/n, reduce); completed steps that do not depend on it are reused`,
  status: `    --status S           ${sessionStatuses.join(' | ')}`,
  resumable: `    --resumable          only sessions that can be resumed now`,
  json: `    --json               print one JSON object (or array) on stdout`,
  stream: `    --stream             without a terminal: each step's answer on stdout as it arrives (progress
                         lines stay on stderr); a terminal's run view always shows it streaming`,
} as const;

/** The help lines of these flags, in this order. */
export function flagLines(...names: (keyof typeof flagHelp)[]): string {
  return names.map((name) => flagHelp[name]).join('\n');
}

const resumeOptions = `\n${flagLines('dryRun', 'yes', 'onChange', 'strategy', 'force', 'autoResume', 'approve', 'response', 'reject', 'stream', 'json')}`;

const idNote = `  <id> may be any unique prefix of at least 4 characters (see 'acode sessions list').`;

const usages = {
  run: `
  Run a workflow spec as a new session; prints the session id first, then one line per step.

  Usage
    $ acode run <spec.yaml> [--var k=v]… [--out <dir>] [--force] [--no-save-session] [--no-auto-resume]
                [--approve | --response "…" | --reject] [--stream | --json]
    $ acode run --resume <id> [resume options]   same as acode resume <id>

  Options
${flagLines('var', 'out', 'force', 'saveSession', 'autoResume', 'approve', 'response', 'reject', 'stream')}
    --resume <id>        resume session <id> instead (see 'acode resume --help')
    --json               print one JSON object on stdout

  Examples
    $ acode run examples/chain-3-step-resume-demo.yaml --var topic="AI agents"
    $ acode run spec.yaml --json | jq .status
    $ acode run spec.yaml --stream > answers.txt
`,
  resume: `
  Resume the most recent interrupted session, or <id>: completed steps are skipped, the step that
  was cut short is checked and continued.

  Usage
    $ acode resume [<id>] [options]

  Options${resumeOptions}

${idNote}

  Examples
    $ acode resume
    $ acode resume 3f2a --dry-run
    $ acode resume 3f2a --yes --strategy retry
`,
  fork: `
  Start a new session from <id> (any status, also completed or failed), reusing its completed steps
  that do not depend on step S and running the rest again.

  Usage
    $ acode fork <id> [--from-step S] [--json]

  Options
    --from-step S        run again from step S: in a chain its number (1-based), the steps before it
                         reused; in a workflow a task id, every completed task not downstream of it
                         reused; in a parallel run branch/n (n from 0) or reduce, the other branches
                         and the steps before it in its branch reused. 'acode sessions show <id>'
                         lists the ids (default: the first unfinished step)
    --json               print one JSON object on stdout

${idNote}

  Examples
    $ acode fork 3f2a
    $ acode fork 3f2a --from-step 2
    $ acode fork 3f2a --from-step technical
    $ acode fork 3f2a --from-step web_research/1
`,
  validate: `
  Check a workflow spec without running it; each problem names file:line:column.

  Usage
    $ acode validate <spec.yaml>

  Examples
    $ acode validate examples/chain-3-step-resume-demo.yaml
`,
  sessions: `
  Manage the sessions stored in $ACODE_HOME.

  Usage
    $ acode sessions list [--status S] [--resumable] [--json]
    $ acode sessions show <id> [--json]
    $ acode sessions history <id> [--json]
    $ acode sessions delete <id> [--force]
    $ acode sessions unlock <id> [--force]

  'acode sessions <command> --help' describes one of them.
`,
  'sessions list': `
  List the stored sessions, newest first.

  Usage
    $ acode sessions list [--status S] [--resumable] [--json]

  Options
${flagHelp.status}
    --resumable          only sessions that can be resumed now
    --json               print an array of session summaries on stdout

  Examples
    $ acode sessions list --resumable
    $ acode sessions list --status failed --json | jq '.[].session_id'
`,
  'sessions show': `
  Show one session: status, lock, progress, tokens, spec, working directory, artifacts.

  Usage
    $ acode sessions show <id> [--json]

  Options
    --json               print the whole session record on stdout

${idNote}

  Examples
    $ acode sessions show 3f2a
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
    $ acode sessions delete <id> [--force]

  Options
    --force              delete without asking, even while the session is locked

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
} as const;

export type HelpTopic = keyof typeof usages;

/** The usage of `command` (and a `sessions` subcommand), or undefined for a command acode does not have. */
export function commandUsage(command: string, sub?: string): string | undefined {
  const topic = command === 'sessions' && sub !== undefined ? `sessions ${sub}` : command;
  return Object.hasOwn(usages, topic) ? usages[topic as HelpTopic] : undefined;
}
