import { spawn } from 'node:child_process';
import { redactKnown } from '../../secrets/redactor.js';
import { StepAbortedError } from '../stop-errors.js';
import { ToolInputError } from './confined-path.js';

/** Seconds a run may take when the call names none, and at most when it does. */
export const defaultPythonTimeoutS = 30;
export const maxPythonTimeoutS = 300;
/** Characters of stdout and of stderr kept each: the rest is read and dropped, so the child never blocks on a full pipe. */
export const maxStreamChars = 50_000;

/**
 * The environment the code runs with: enough to find python3 and write text, and none of acode's
 * own (the provider's key, env.secrets, a cloud's credentials): code a model wrote has no use for them.
 */
function childEnv(): NodeJS.ProcessEnv {
  const keep = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TMPDIR', 'TZ', 'SYSTEMROOT'];
  return { ...Object.fromEntries(keep.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]]]))), PYTHONIOENCODING: 'utf-8', PYTHONDONTWRITEBYTECODE: '1' };
}

function collector() {
  let text = '';
  let dropped = 0;
  return {
    add(piece: string) {
      const room = maxStreamChars - text.length;
      if (room > 0) text += piece.slice(0, room);
      dropped += Math.max(0, piece.length - Math.max(0, room));
    },
    value: () => (dropped ? `${text}\n[… ${dropped} more characters not kept]` : text),
  };
}

/**
 * What python3 runs first: a thread that kills the whole process group once its parent (acode) is
 * gone — a kill -9 of acode would otherwise leave the code running, unbounded by any timeout, while
 * a resume decides whether it happened — then the code from stdin, as `python3 -` would run it.
 */
const watchdog = [
  'import os, signal, sys, threading, time',
  'def _watch(parent=os.getppid()):',
  '    while os.getppid() == parent:',
  '        time.sleep(0.1)',
  '    os.killpg(0, signal.SIGKILL)',
  'threading.Thread(target=_watch, daemon=True).start()',
  "sys.argv = ['-']",
  "exec(compile(sys.stdin.read(), '<python_exec>', 'exec'), {'__name__': '__main__', '__builtins__': __builtins__})",
].join('\n');

/**
 * Runs `code` as `python3 -` would, in `cwd`, in a process group of its own: a timeout or the run's
 * stop kills the whole group (the code's own children too), so nothing it started outlives the call;
 * so does the death of acode itself (the watchdog above).
 * Answers stdout, then stderr and the exit status when they say something.
 */
export function runPython(code: unknown, timeout: unknown, cwd: string, signal: AbortSignal): Promise<{ ok: boolean; output: string }> {
  if (typeof code !== 'string' || code.trim() === '') throw new ToolInputError("'code' is required");
  const seconds = typeof timeout === 'number' && timeout > 0 ? Math.min(timeout, maxPythonTimeoutS) : defaultPythonTimeoutS;
  if (signal.aborted) throw new StepAbortedError();
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-c', watchdog], { cwd, env: childEnv(), detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout = collector();
    const stderr = collector();
    let ended: 'timeout' | 'stopped' | undefined;
    const killGroup = (why: 'timeout' | 'stopped') => {
      ended ??= why;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is gone already.
      }
    };
    const timer = setTimeout(() => killGroup('timeout'), seconds * 1000);
    const onAbort = () => killGroup('stopped');
    signal.addEventListener('abort', onAbort, { once: true });
    // Decoded as a stream: a character split between two reads is kept whole.
    child.stdout.setEncoding('utf8').on('data', stdout.add);
    child.stderr.setEncoding('utf8').on('data', stderr.add);
    // Code that never reads stdin closes it early: that is not a failure of the call.
    child.stdin.on('error', () => {});
    child.stdin.end(code);
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      reject(error.code === 'ENOENT' ? new ToolInputError('python3 is not installed on this machine (or not on PATH)') : error);
    });
    child.on('close', (status, killedBy) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (ended === 'stopped') return reject(new StepAbortedError());
      const out = stdout.value();
      const err = stderr.value();
      const clean = status === 0 && ended === undefined;
      const parts = [out || (err || !clean ? '' : 'Code executed successfully (no output)')];
      if (err) parts.push(`stderr:\n${err}`);
      if (ended === 'timeout') parts.push(`killed after ${seconds} s (the timeout)`);
      else if (status !== 0) parts.push(killedBy ? `ended by ${killedBy}` : `exit status ${status}`);
      // What the code printed loses every registered secret, as a server's answer does.
      resolve({ ok: clean, output: redactKnown(parts.filter(Boolean).join('\n')) });
    });
  });
}
