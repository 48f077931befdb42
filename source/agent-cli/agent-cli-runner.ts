import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { AgentCliCall, AgentCliOutcome, AgentCliPort, AgentCliUpdate } from '../engine/agent-cli.js';
import { ProviderError, StepAbortedError } from '../engine/stop-errors.js';
import { isExited, processAlive, processStart, processStat } from '../store/process-liveness.js';
import { cliArgs } from './cli-args.js';
import { claudeStream } from './claude-stream.js';
import { codexStream } from './codex-stream.js';
import { findExecutable } from './find-executable.js';
import { folderManifest } from './folder-manifest.js';

/** A line of the CLI's stream longer than this is not JSON acode can use: the CLI is stopped. */
const longestLine = 16 * 1024 * 1024;
/** stderr kept for a failure's message: its last lines. */
const stderrKept = 4096;
/** How long stdout may stay open after the CLI exits (a leftover process holding it) before its group is ended. */
const drainMs = 1000;
/** Between TERM and KILL when a CLI's group is ended. */
const graceMs = 3000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Live members of process group `pgid` (a zombie does not count), each with its /proc start time in clock ticks. */
function groupMembers(pgid: number): { pid: number; start: number }[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  return pids.flatMap((pid) => {
    const stat = processStat(pid);
    return stat && stat.group === pgid && !isExited(stat) ? [{ pid: Number(pid), start: Number(stat.start) }] : [];
  });
}

/**
 * Whether any live process of group `pgid` is left. Signal 0 reaches zombies too (a killed child no
 * init reaps stays one), so where /proc exists its members are counted by their state.
 */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (!existsSync('/proc/self/stat')) return true;
  return groupMembers(pgid).length > 0;
}

/** This boot of the machine: start times in ticks count from boot, so after a reboot they repeat. */
function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return '';
  }
}

/** What identifies process `pid` for good: its start time, qualified by the boot it started in. */
function startMark(pid: number): string {
  const ticks = processStart(pid);
  if (!ticks) return '';
  const boot = bootId();
  return boot ? `${ticks}@${boot}` : ticks;
}

/**
 * Whether the CLI journaled as `pid` started at `started`, or anything it started, still runs. The
 * CLI itself may be gone (killed alone, or dead of its broken pipe to acode) while a build or a
 * server it launched keeps working in its process group. Linux never hands out a pid still naming a
 * live process group, so the group's members are the CLI's own — when the pid names no other live
 * process now (then it was reused, and the group is that process's), in the same boot, and each
 * member started after the CLI did.
 */
function running(pid: number, started: string): boolean {
  if (!started) return false;
  if (processAlive(pid)) return startMark(pid) === started;
  const [ticks, boot] = started.split('@');
  if (!boot || boot !== bootId()) return false;
  return groupMembers(pid).some((member) => member.start >= Number(ticks));
}

async function endGroup(pgid: number): Promise<void> {
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-pgid, name);
    } catch {
      // gone already
    }
  };
  signal('SIGTERM');
  for (let waited = 0; waited < graceMs && groupAlive(pgid); waited += 50) await sleep(50);
  if (!groupAlive(pgid)) return;
  signal('SIGKILL');
  for (let waited = 0; waited < 2000 && groupAlive(pgid); waited += 50) await sleep(50);
}

/** The child's environment: acode's own, less the secrets the spec declares (env.secrets) and the team store's URL. */
function childEnv(withhold: readonly string[]): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [...withhold, 'ACODE_REMOTE_URL']) delete env[name];
  return env;
}

/**
 * Runs claude or codex headless in its own process group (so Ctrl+C here, a timeout or a resume
 * can end it and everything it started, and a kill -9 of acode leaves it for the resume to find), the
 * prompt on stdin, its JSON stream read line by line.
 */
export function agentCliRunner(options: { exclude?: readonly string[] } = {}): AgentCliPort {
  return {
    running,
    endGroup,
    // acode's own home (its logs change while the CLI runs) is never a file the CLI touched.
    snapshot: (cwd, previous) => folderManifest(cwd, options.exclude ?? [], undefined, previous),
    run: (call, onUpdate) => runCli(call, onUpdate),
  };
}

function runCli(call: AgentCliCall, onUpdate: (update: AgentCliUpdate) => void | Promise<void>): Promise<AgentCliOutcome> {
  const executable = findExecutable(call.cli);
  if (!executable) return Promise.reject(new ProviderError(`${call.cli} is not on PATH; install it or put it on PATH, then resume`, false));
  if (call.signal.aborted) return Promise.reject(new StepAbortedError());
  const stream = call.cli === 'claude' ? claudeStream() : codexStream();
  return new Promise((resolve, reject) => {
    const child = spawn(executable, cliArgs(call), { cwd: call.cwd, detached: true, stdio: ['pipe', 'pipe', 'pipe'], env: childEnv(call.withhold) });
    let pending = '';
    let stderr = '';
    let why: 'aborted' | 'timeout' | 'line' | undefined;
    let settled = false;
    const stop = (reason: typeof why) => {
      why ??= reason;
      if (child.pid) void endGroup(child.pid);
    };
    const onAbort = () => stop('aborted');
    call.signal.addEventListener('abort', onAbort, { once: true });
    const timer = call.timeoutMs ? setTimeout(() => stop('timeout'), call.timeoutMs) : undefined;
    const finish = (action: () => void) => {
      if (settled) return;
      settled = true;
      call.signal.removeEventListener('abort', onAbort);
      if (timer) clearTimeout(timer);
      action();
    };
    child.on('error', (error) => finish(() => reject(new ProviderError(`${call.cli} could not be started: ${error.message}`, false))));
    child.on('spawn', () => {
      const pid = child.pid!;
      // The task goes to the CLI once the journal names it (see AgentCliPort.run); when the journal cannot be written it gets none, and ends.
      void Promise.resolve(onUpdate({ kind: 'spawned', pid, started: startMark(pid) })).then(
        () => child.stdin.end(call.prompt),
        () => child.stdin.end(),
      );
    });
    child.stdin.on('error', () => undefined); // a CLI that exits without reading its prompt
    const handle = (raw: string) => {
      const line = raw.trim();
      if (!line.startsWith('{')) return;
      let event: unknown;
      try {
        event = JSON.parse(line);
      } catch {
        return;
      }
      if (event && typeof event === 'object' && !Array.isArray(event)) stream.line(event as Record<string, unknown>, onUpdate);
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      pending += chunk;
      let newline: number;
      while ((newline = pending.indexOf('\n')) >= 0) {
        handle(pending.slice(0, newline));
        pending = pending.slice(newline + 1);
      }
      if (pending.length > longestLine) {
        pending = '';
        stop('line');
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-stderrKept);
    });
    // The CLI has exited, but a process it left in its group (a server started with &) may hold its
    // stdout open, and 'close' would wait for it for ever: after a moment to drain, the group is ended.
    let drain: NodeJS.Timeout | undefined;
    child.on('exit', () => {
      drain = setTimeout(() => {
        if (child.pid) void endGroup(child.pid);
      }, drainMs);
    });
    child.on('close', (code, signal) => {
      if (drain) clearTimeout(drain);
      // Nothing the CLI started outlives its step: it would go on working in the folder unwatched.
      if (child.pid && groupAlive(child.pid)) void endGroup(child.pid);
      if (pending) handle(pending);
      finish(() => {
        if (why === 'aborted') return reject(new StepAbortedError());
        if (why === 'timeout') return reject(new ProviderError(`${call.cli} ran past its timeout of ${Math.round((call.timeoutMs ?? 0) / 1000)} s and was stopped`, true, { detail: 'timeout' }));
        if (why === 'line') return reject(new ProviderError(`${call.cli} wrote a line longer than ${longestLine / 1024 / 1024} MiB; it was stopped`, false));
        const ended = stream.end();
        if (ended && 'failure' in ended) return reject(ended.failure);
        if (ended && code === 0) return resolve(ended.outcome);
        const tail = stderr.trim().split('\n').slice(-8).join('\n');
        const how = signal ? `was killed (${signal})` : `exited with code ${code}`;
        // Killed from outside: the conversation is intact; a retry continues it.
        if (signal) return reject(new ProviderError(`${call.cli} ${how} before it finished${tail ? `: ${tail}` : ''}`, true, { detail: `${call.cli} killed`, retryLimit: 2 }));
        reject(new ProviderError(`${call.cli} ${how} without a result${tail ? `; its last words: ${tail}` : ''}`, false, { detail: `${call.cli} exit ${code}` }));
      });
    });
  });
}
