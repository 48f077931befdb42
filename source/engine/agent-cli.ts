import type { AgentCliStep } from '../spec/schema.js';
import type { BlobStore } from './blob-store.js';
import type { TokenUsage } from './events.js';

/**
 * The port through which a step runs an agent CLI (claude, codex) headless. The engine says what to
 * run and journals what it hears; source/agent-cli/ implements it — spawning the CLI in its own
 * process group and reading its JSON stream. A failure is thrown as the stop errors providers throw
 * (RateLimitError with the reset time of a usage limit, ContextExhaustedError, ProviderError,
 * StepAbortedError), so the one continuation policy answers a CLI as it answers a model.
 */
export interface AgentCliCall {
  cli: AgentCliStep['cli'];
  prompt: string;
  /** The CLI conversation to continue (`--resume <id>`, `codex exec resume <id>`). */
  resumeId?: string;
  /** Absolute, already confined to the session's working directory. */
  cwd: string;
  model?: string;
  allowedTools?: readonly string[];
  args?: readonly string[];
  timeoutMs?: number;
  /** Environment variables the child must not inherit: the spec's env.secrets. */
  withhold: readonly string[];
  signal: AbortSignal;
}

/** What the CLI says while it runs, in the order it says it. */
export type AgentCliUpdate =
  /** The child runs: `started` identifies this very process (its start time), so a later check of the pid cannot mistake another process for it. */
  | { kind: 'spawned'; pid: number; started: string }
  | { kind: 'session'; id: string }
  | { kind: 'text'; text: string }
  | { kind: 'tool'; name: string };

export interface AgentCliOutcome {
  /** The CLI's final answer: the step's response. */
  text: string;
  /** The conversation's id, when the stream named one. */
  sessionId: string | null;
  usage: TokenUsage;
  /** What the CLI says the call cost (claude's total_cost_usd); null when it does not say. */
  costUsd: number | null;
}

export interface AgentCliPort {
  /**
   * `onUpdate` answers `spawned` with the journal's flush: the prompt reaches the CLI only after it,
   * so a kill -9 of acode in between leaves a CLI waiting for a task (and ending at the EOF of its
   * stdin), never one at work that no journal names.
   */
  run(call: AgentCliCall, onUpdate: (update: AgentCliUpdate) => void | Promise<void>): Promise<AgentCliOutcome>;
  /** True while the process that started at `started` still runs as `pid`, or anything it started still runs in its process group. */
  running(pid: number, started: string): boolean;
  /** Ends the process group led by `pid` (TERM, then KILL after a grace) and waits until it is gone. */
  endGroup(pid: number): Promise<void>;
  /**
   * What the folder a CLI works in holds, as path → content hash (acode's own folders left out):
   * taken before and after each attempt, it says which files the CLI touched.
   */
  snapshot(cwd: string, previous?: Record<string, string>): Record<string, string>;
}

/** Files whose hash differs between two snapshots of one folder, in path order (null: no file). */
export function snapshotChanges(before: Record<string, string>, after: Record<string, string>): { path: string; before: string | null; after: string | null }[] {
  const paths = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return paths.filter((path) => before[path] !== after[path]).map((path) => ({ path, before: before[path] ?? null, after: after[path] ?? null }));
}

/** What an agent CLI step's attempt left in the journal: a resume ends a CLI still running and continues its conversation. */
export interface AgentCliRun {
  cli: AgentCliStep['cli'];
  attempt: number;
  pid: number;
  started: string;
  /** The conversation's id, once the stream named it. */
  session_id: string | null;
  /** The spec's `session:` name, when the step continues a named conversation. */
  session?: string;
  /** Where it worked. */
  cwd: string;
  /** Blob of the working folder's snapshot (JSON path → hash) before the step's first attempt: a resume compares the folder with it. */
  tree?: string;
}

/** The prompt of a retried attempt that continues its own conversation: the CLI already has the task. */
export function continuePrompt(cli: AgentCliStep['cli']): string {
  return `You were interrupted (${cli} was stopped before it finished). Continue the task from where you stopped; check the files you already changed before changing them again, and do not redo finished work. End with your final answer to the task.`;
}

/** How a person opens the step's conversation in the CLI itself. */
export function openCommand(cli: AgentCliStep['cli'], sessionId: string): string {
  return cli === 'claude' ? `claude --resume ${sessionId}` : `codex resume ${sessionId}`;
}

/** A folder snapshot journaled as a blob (agent_cli_started.tree); undefined when it cannot be read. */
export function readSnapshot(blobs: Pick<BlobStore, 'get'>, hash: string): Record<string, string> | undefined {
  try {
    return JSON.parse(blobs.get(hash).toString('utf8')) as Record<string, string>;
  } catch {
    return undefined;
  }
}
