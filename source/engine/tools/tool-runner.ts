import type { StepId } from '../step-id.js';
import { existsSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { sha256, type BlobStore } from '../blob-store.js';
import type { EngineEventBody } from '../events.js';
import type { ToolCall, WriteCrash } from '../provider.js';
import { confinement, filesBeneath, readFileBeneath } from './beneath.js';
import { confinedPath, ToolInputError } from './confined-path.js';
import { writeWithIntent } from './write-ahead.js';
import { diskFull } from '../disk-full.js';
import { ensureStillOwned } from '../journal.js';
import { changesServer, readHttpArgs, sendHttpRequest } from './http-request.js';
import { runPython } from './python-exec.js';
import { executorHost, executorRequest, type HttpExecutor } from './http-executors.js';

export interface ToolRunContext {
  step: StepId;
  attempt: number;
  cwd: string;
  /** Folders outside cwd the spec allows (env.mounts). */
  extraRoots: readonly string[];
  blobs: BlobStore;
  emit(body: EngineEventBody): void;
  /** Scripted-provider hook: how a file_write dies mid-write. */
  crash?: WriteCrash;
  /** The session whose temp files a write leaves if the process dies mid-write (their names carry it). */
  sessionId?: string;
  /** Journal.stillOwned: a write into the working directory calls ensureStillOwned(ctx.stillOwned) right before it happens. */
  stillOwned?: () => boolean;
  /** The tools the agent was given: python_exec and http_request run only when the spec gave them. */
  tools?: ReadonlySet<string>;
  /** The hosts http_request may reach (security.guardrails.allow_hosts). */
  allowHosts?: readonly string[];
  /** The run's stop (Ctrl+C, a lost lock): a running python_exec is killed with its group, a request cancelled. */
  signal?: AbortSignal;
  /** The spec's HTTP executors (tools.http_executors) by id, their headers read. */
  executors?: ReadonlyMap<string, HttpExecutor>;
}

export interface ToolOutcome {
  ok: boolean;
  output: string;
}

/** What goes back to the model; larger outputs are cut with a note. */
const maxOutputChars = 100_000;
const grepMaxFiles = 2000;

function text(value: unknown, name: string): string {
  if (typeof value !== 'string') throw new ToolInputError(`${name} must be a string`);
  return value;
}

function count(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : fallback;
}

/** Reads a file and records what the session saw of it (hash + snapshot) in the event log. */
function readSeen(path: string, callId: string, ctx: ToolRunContext): string {
  // Opened, then checked where it really is: a folder on the path swapped for a link cannot lead outside.
  const content = readFileBeneath(path, confinement(ctx.cwd, ctx.extraRoots));
  if (content === null) {
    ctx.emit({ type: 'file_read', step: ctx.step, call_id: callId, path, hash: null, blob: null });
    throw new ToolInputError(`no such file: ${relative(ctx.cwd, path)}`);
  }
  return recordRead(path, content, callId, ctx);
}

function recordRead(path: string, content: Buffer, callId: string, ctx: ToolRunContext): string {
  ctx.emit({ type: 'file_read', step: ctx.step, call_id: callId, path, hash: sha256(content), blob: ctx.blobs.put(content) });
  return content.toString('utf8');
}

const notSearched = (name: string) => name === 'node_modules' || name === '.git';

function grep(call: ToolCall, ctx: ToolRunContext, root: string): string {
  const { args } = call;
  const regex = new RegExp(text(args.pattern, 'pattern'), args.ignore_case === true ? 'i' : '');
  const context = count(args.context_lines, 3);
  const max = count(args.max_matches, 100);
  const out: string[] = [];
  let matches = 0;
  let searched = 0;
  // The walk reads folders through checked descriptors and never follows a symlink in them.
  for (const file of filesBeneath(root, confinement(ctx.cwd, ctx.extraRoots), notSearched)) {
    if (searched++ === grepMaxFiles) break;
    const content = file.read();
    if (content === null) continue;
    const lines = recordRead(file.path, content, call.id, ctx).split('\n');
    for (let i = 0; i < lines.length && matches < max; i++) {
      if (!regex.test(lines[i]!)) continue;
      matches++;
      for (let j = Math.max(0, i - context); j <= Math.min(lines.length - 1, i + context); j++) {
        out.push(`${relative(ctx.cwd, file.path)}:${j + 1}${j === i ? ':' : '-'} ${lines[j]}`);
      }
    }
  }
  return out.length ? out.join('\n') : `no lines match /${regex.source}/`;
}

function currentTime(args: Record<string, unknown>): string {
  const now = new Date();
  if (args.format === 'unix') return String(Math.floor(now.getTime() / 1000));
  if (args.format === 'human') return args.timezone === 'local' ? now.toString() : now.toUTCString();
  return args.timezone === 'local' ? new Date(now.getTime() - now.getTimezoneOffset() * 60_000).toISOString().replace('Z', '') : now.toISOString();
}

/**
 * Journals a call's effect before it happens (durably: the journal syncs this event at once), then
 * checks the session is still this process's: a resume after a crash between the two knows the call
 * may have happened, and decides before running it again (engine/effect-recovery.ts).
 */
function intendEffect(call: ToolCall, what: string, ctx: ToolRunContext): void {
  ctx.emit({ type: 'tool_effect_intended', call_id: call.id, step: ctx.step, attempt: ctx.attempt, name: call.name, what });
  ensureStillOwned(ctx.stillOwned);
}

/** Tools that act outside the working directory run only for an agent the spec gave them to. */
function requireGiven(name: string, ctx: ToolRunContext): void {
  if (ctx.tools && !ctx.tools.has(name)) throw new ToolInputError(`tool '${name}' is not one this agent was given (the spec lists its tools)`);
}

const neverStopped = new AbortController().signal;

async function execute(call: ToolCall, ctx: ToolRunContext): Promise<string | ToolOutcome> {
  const path = () => confinedPath(ctx.cwd, call.args.path, ctx.extraRoots);
  switch (call.name) {
    case 'calculator':
      // mathjs is loaded by the first calculation: a run whose agents never calculate never parses it.
      return (await import('./calculator.js')).calculate(call.args.expression);
    case 'http_request': {
      requireGiven(call.name, ctx);
      const allowHosts = ctx.allowHosts ?? [];
      const request = readHttpArgs(call.args, allowHosts);
      if (changesServer(call.args)) intendEffect(call, `${request.method} ${request.url.origin}${request.url.pathname}`, ctx);
      return sendHttpRequest(request, allowHosts, ctx.signal ?? neverStopped);
    }
    case 'python_exec': {
      requireGiven(call.name, ctx);
      const code = typeof call.args.code === 'string' ? call.args.code : '';
      if (code.trim()) intendEffect(call, `python_exec: ${code.split('\n').length} line${code.split('\n').length === 1 ? '' : 's'}`, ctx);
      return runPython(call.args.code, call.args.timeout, ctx.cwd, ctx.signal ?? neverStopped);
    }
    case 'file_read':
      return readSeen(path(), call.id, ctx);
    case 'head':
      return readSeen(path(), call.id, ctx).split('\n').slice(0, count(call.args.lines, 10)).join('\n');
    case 'tail': {
      const lines = readSeen(path(), call.id, ctx).replace(/\n$/, '').split('\n');
      return lines.slice(Math.max(0, lines.length - count(call.args.lines, 10))).join('\n');
    }
    case 'grep':
      return grep(call, ctx, path());
    case 'current_time':
      return currentTime(call.args);
    case 'file_write': {
      const target = path();
      const content = text(call.args.content, 'content');
      if (!existsSync(dirname(target)) && call.args.create_dirs !== true) {
        throw new ToolInputError(`folder ${relative(ctx.cwd, dirname(target)) || '.'} does not exist; pass create_dirs: true to create it`);
      }
      return writeWithIntent(target, Buffer.from(content), call.id, ctx);
    }
    default: {
      const executor = ctx.executors?.get(call.name);
      if (!executor) throw new ToolInputError(`unknown tool '${call.name}'`);
      requireGiven(call.name, ctx);
      const request = executorRequest(executor, call.args);
      if (changesServer(call.args)) intendEffect(call, `${request.method} ${request.url.origin}${request.url.pathname}`, ctx);
      return sendHttpRequest(request, [executorHost(executor)], ctx.signal ?? neverStopped);
    }
  }
}

/** A failure to journal (disk full, lock lost): never the model's business, always the run's. */
class JournalFailure extends Error {
  constructor(readonly original: unknown) {
    super('journal write failed');
  }
}

/** Runs one tool call; bad input becomes an error message for the model, never a crash. */
export async function runTool(call: ToolCall, ctx: ToolRunContext): Promise<ToolOutcome> {
  const journaled: ToolRunContext = {
    ...ctx,
    emit(body) {
      try {
        ctx.emit(body);
      } catch (error) {
        throw new JournalFailure(error);
      }
    },
  };
  try {
    const done = await execute(call, journaled);
    const { ok, output } = typeof done === 'string' ? { ok: true, output: done } : done;
    return { ok, output: output.length > maxOutputChars ? `${output.slice(0, maxOutputChars)}\n[… cut at ${maxOutputChars} characters]` : output };
  } catch (error) {
    if (error instanceof JournalFailure) throw error.original;
    // A full disk stops the run (paused, resumable); the model cannot do anything about it.
    if (diskFull(error)) throw error;
    if (error instanceof ToolInputError || (error as NodeJS.ErrnoException).code !== undefined || error instanceof SyntaxError) {
      return { ok: false, output: `error: ${(error as Error).message}` };
    }
    throw error;
  }
}
