import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Small fake `claude` and `codex` executables that speak each tool's real headless JSON stream
 * (claude: `-p --output-format stream-json --verbose`, system/init → assistant → result; codex:
 * `exec --json`, thread.started → item.* → turn.completed), log their argv and prompt, keep each
 * conversation's task by its id (so "continue" after --resume answers the same task), write a file
 * per task in their working directory, and can be told — by a JSON control file read at each start —
 * to hang (with a grandchild in their process group) or to answer with a usage limit.
 *
 * Control file (`FAKE_CLI_CONTROL`): { hang?: string, trapTerm?: boolean, limit?: string, limitMessage?: string, say?: string, failWith?: string, stderrBytes?: number, garbage?: boolean, longLineMb?: number, switchId?: boolean, leaveBehind?: string, silent?: boolean } — a
 * prompt containing `hang` sleeps after naming its session (its grandchild's pid in `grandchild`;
 * with `trapTerm` it ignores SIGTERM); one containing `limit` answers with a usage limit the first
 * time (the mark is then spent, recorded in the state folder). `say` is repeated in the text, a tool
 * use and stderr; `failWith` ends the call with exit 3, no result, and that last stderr line after
 * `stderrBytes` of noise. `garbage` writes lines that are not JSON objects first; `longLineMb` writes
 * one line that long with no newline, then exits; `switchId` (claude) names another session id
 * mid-stream before its result names its own again; a prompt containing `leaveBehind` answers and
 * exits, leaving a process in its group that holds its stdout (pid in `left-behind`); `silent` exits 0
 * after naming its session, with no result.
 */
const script = (cli: 'claude' | 'codex') => `#!/usr/bin/env node
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const state = process.env.FAKE_CLI_STATE;
const argv = process.argv.slice(2);
const control = (() => { try { return JSON.parse(fs.readFileSync(process.env.FAKE_CLI_CONTROL, 'utf8')); } catch { return {}; } })();
let prompt = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => (prompt += c));
process.stdin.on('end', main);
const out = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
function main() {
  const cli = ${JSON.stringify(cli)};
  let resume = null;
  if (cli === 'claude') { const i = argv.indexOf('--resume'); if (i >= 0) resume = argv[i + 1]; }
  else { const i = argv.indexOf('resume'); if (i >= 0) resume = argv[i + 1]; }
  fs.mkdirSync(path.join(state, 'sessions'), { recursive: true });
  // Whether what an earlier (hung) call started still runs as this one starts: two agents in one folder.
  const earlier = (() => { try { return Number(fs.readFileSync(path.join(state, 'grandchild'), 'utf8')); } catch { return 0; } })();
  const alive = (pid) => { try { const s = fs.readFileSync('/proc/' + pid + '/stat', 'utf8'); const st = s[s.lastIndexOf(')') + 2]; return st !== 'Z' && st !== 'X'; } catch { return false; } };
  fs.appendFileSync(path.join(state, 'calls.jsonl'), JSON.stringify({ cli, argv, prompt, pid: process.pid, pgid: process.pid, cwd: process.cwd(), resume, secret: process.env.FAKE_SECRET ?? null, earlierAlive: earlier ? alive(earlier) : null }) + '\\n');
  const id = resume ?? (cli === 'claude' ? crypto.randomUUID() : '019a' + crypto.randomBytes(14).toString('hex'));
  const file = path.join(state, 'sessions', id + '.json');
  const known = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : { tasks: [] };
  const continuing = /^You were interrupted/.test(prompt);
  const task = continuing ? known.tasks[known.tasks.length - 1] : prompt.trim();
  if (!continuing) known.tasks.push(task);
  fs.writeFileSync(file, JSON.stringify(known));
  if (cli === 'claude') out({ type: 'system', subtype: 'init', session_id: id, cwd: process.cwd(), model: 'claude-fake', tools: ['Edit', 'Bash'] });
  else { out({ type: 'thread.started', thread_id: id }); out({ type: 'turn.started' }); }
  const spent = path.join(state, 'spent-limit');
  if (control.limit && task.includes(control.limit) && !fs.existsSync(spent)) {
    fs.writeFileSync(spent, '1');
    const message = control.limitMessage ?? "You've hit your usage limit. Try again in 2 seconds.";
    if (cli === 'claude') out({ type: 'result', subtype: 'success', is_error: true, result: message, session_id: id, total_cost_usd: 0, usage: { input_tokens: 0, output_tokens: 0 } });
    else { out({ type: 'error', message }); out({ type: 'turn.failed', error: { message } }); }
    process.exit(1);
  }
  const name = (task.match(/PHASE:([a-z0-9-]+)/) || [null, 'task'])[1];
  if (control.say) {
    // What an agent read somewhere (a .env, a log) and repeats: in its text, a tool's name and input, and on stderr.
    process.stderr.write('debug: ' + control.say + '\\n');
    if (cli === 'claude') out({ type: 'assistant', message: { content: [{ type: 'text', text: 'Found ' + control.say }, { type: 'tool_use', id: 't0', name: 'Bash_' + control.say, input: { command: 'echo ' + control.say } }] }, session_id: id });
    else { out({ type: 'item.started', item: { id: 'i9', type: 'command_execution', command: 'echo ' + control.say, status: 'in_progress' } }); out({ type: 'item.completed', item: { id: 'i8', type: 'agent_message', text: 'Found ' + control.say } }); }
  }
  // A stream naming another conversation in the middle (its own id again at the end): the id to continue is the last one named.
  if (control.switchId && cli === 'claude') out({ type: 'assistant', message: { content: [{ type: 'text', text: 'aside' }] }, session_id: 'other-' + id });
  if (control.garbage) process.stdout.write('not json at all\\n{"type": broken\\n[1,2]\\nnull\\n');
  if (control.longLineMb) {
    // One line of control.longLineMb MiB with no newline, written as fast as the pipe takes it.
    const chunk = '{"type":"assistant","pad":"' + 'y'.repeat(1024 * 1024);
    let left = control.longLineMb;
    const more = () => { while (left > 0) { left--; if (!process.stdout.write(chunk)) return process.stdout.once('drain', more); } process.exit(0); };
    more();
    return;
  }
  if (control.silent) process.exit(0);
  if (control.failWith) {
    // No result: a crash with a long stderr (control.stderrBytes of it) that ends in its last words.
    process.stderr.write('x'.repeat(control.stderrBytes ?? 0) + '\\n' + control.failWith + '\\n', () => process.exit(3));
    return;
  }
  if (cli === 'claude') out({ type: 'assistant', message: { content: [{ type: 'text', text: 'Working on ' + name }, { type: 'tool_use', id: 't1', name: 'Edit', input: { file_path: name + '.md' } }] }, session_id: id });
  else out({ type: 'item.started', item: { id: 'i0', type: 'command_execution', command: 'ls', aggregated_output: '', exit_code: null, status: 'in_progress' } });
  fs.appendFileSync(path.join(process.cwd(), name + '.md'), cli + ' worked on ' + name + '\\n');
  if (control.hang && task.includes(control.hang) && !continuing) {
    // A grandchild in the same process group: ending the group must end it too.
    const grandchild = spawn('sleep', ['1000'], { stdio: 'ignore' });
    fs.writeFileSync(path.join(state, 'grandchild'), String(grandchild.pid));
    if (control.trapTerm) process.on('SIGTERM', () => fs.appendFileSync(path.join(state, 'ignored-term'), '1'));
    fs.writeFileSync(path.join(state, 'hanging'), String(process.pid));
    setInterval(() => {}, 1000);
    return;
  }
  if (control.leaveBehind && task.includes(control.leaveBehind)) {
    // A process it started that outlives it, holding its stdout (a server started with &): the step must still end, and take it along.
    const left = spawn('sleep', ['1000'], { stdio: ['ignore', 'inherit', 'inherit'] });
    left.unref();
    fs.writeFileSync(path.join(state, 'left-behind'), String(left.pid));
  }
  const answer = name + ' done by ' + cli + ' (' + known.tasks.length + ' task' + (known.tasks.length === 1 ? '' : 's') + ' in this conversation)';
  if (cli === 'claude') out({ type: 'result', subtype: 'success', is_error: false, result: answer, session_id: id, total_cost_usd: 0.0125, num_turns: 2, duration_ms: 5, usage: { input_tokens: 120, cache_read_input_tokens: 30, output_tokens: 40 } });
  else { out({ type: 'item.completed', item: { id: 'i1', type: 'agent_message', text: answer } }); out({ type: 'turn.completed', usage: { input_tokens: 150, cached_input_tokens: 0, output_tokens: 40 } }); }
}
`;

export interface FakeClis {
  /** Put first on PATH. */
  bin: string;
  /** Calls logged and conversations kept. */
  state: string;
  control: string;
  env: Record<string, string>;
}

export function fakeAgentClis(root: string): FakeClis {
  const bin = join(root, 'fake-bin');
  const state = join(root, 'fake-state');
  mkdirSync(bin, { recursive: true });
  mkdirSync(state, { recursive: true });
  for (const cli of ['claude', 'codex'] as const) {
    writeFileSync(join(bin, cli), script(cli));
    chmodSync(join(bin, cli), 0o755);
  }
  const control = join(state, 'control.json');
  writeFileSync(control, '{}');
  return { bin, state, control, env: { PATH: `${bin}:${process.env.PATH ?? ''}`, FAKE_CLI_STATE: state, FAKE_CLI_CONTROL: control } };
}
