import { z } from '../validation/z.js';
import type { Checkpoint } from '../engine/session-progress.js';
import { stopReasons } from '../engine/events.js';
import { upgradeCheckpoint } from './checkpoint-upgrade.js';
import { sessionStatuses } from '../session/status-words.js';

const statusSchema = z.enum(sessionStatuses);
const tokensSchema = z.object({ input: z.number(), output: z.number() });

const inProgressSchema = z.object({ step: z.string(), attempt: z.number().int(), idempotency_key: z.string() });

const checkpointSchema = z.preprocess(upgradeCheckpoint, z.object({
  status: statusSchema,
  steps_total: z.number().int(),
  steps_done: z.number().int(),
  in_progress: z.record(z.string(), inProgressSchema),
  awaiting: z.array(z.string()),
  tokens: tokensSchema,
  stop_reason: z
    .enum(stopReasons)
    .nullable(),
  error: z.string().nullable(),
  artifacts: z.array(z.string()),
  last_event_id: z.number().int(),
  /** Absent in checkpoints written before lock epochs: 0. */
  epoch: z.number().int().default(0),
  last_event_at: z.string().nullable(),
  last_response_preview: z.string(),
})) satisfies z.ZodType<Checkpoint>;

/** session.json: who the session is, what it runs, and its latest checkpoint. Never holds secrets. */
/**
 * 2: progress keyed by step id (any pattern). Sessions written as 1 (chain positions) are read and
 * upgraded in memory, and written back as 2 by the next run that holds them.
 */
export const sessionSchemaVersion = 2;

export const sessionRecordSchema = z.object({
  schemaVersion: z.union([z.literal(1), z.literal(2)]).transform((): 2 => 2),
  session_id: z.string(),
  /** `--name`: unique in its ACODE_HOME (claimed in names/); absent for sessions started without one. */
  name: z.string().optional(),
  workflow_name: z.string(),
  pattern_type: z.string(),
  spec_path: z.string(),
  spec_hash: z.string(),
  cwd: z.string(),
  variables: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  runtime: z.object({ provider: z.string(), model_id: z.string().optional(), host: z.string().optional() }),
  /** The artifacts' output folder (`--out`), absolute; absent in sessions from before it: the working directory. */
  artifacts_dir: z.string().optional(),
  /** `--force`: artifacts may overwrite files this session did not write. */
  artifacts_force: z.boolean().optional(),
  /** A fork's: files its source session wrote, which its artifacts may overwrite as their own. */
  artifacts_inherited: z.array(z.string()).optional(),
  /**
   * The moves of the session between folders as it was pulled from the team store onto other
   * machines, oldest first: the paths of events up to `through_event` were written under `from`
   * (the store keeps events as written), and are found under `to` on the machine that pulled them.
   */
  relocations: z.array(z.object({ from: z.string(), to: z.string(), through_event: z.number().int() })).optional(),
  /**
   * The start of the first step's input as rendered (firstInputGist: redacted, 40 characters), set
   * from the first `step_started` the session journals: what tells apart the browser's rows of one
   * workflow run without variables. Absent before that, and in sessions written before it.
   */
  first_input: z.string().optional(),
  created_at: z.string(),
  updated_at: z.string(),
  checkpoint: checkpointSchema,
});

/** Characters of the first step's input a session keeps in its record and index row. */
export const firstInputChars = 40;

/** "Research AI agents and write a short…": an input's first characters (whole code points), its whitespace one space. */
export function firstInputGist(input: string): string {
  const chars = [...input.replace(/\s+/g, ' ').trim()];
  return chars.length > firstInputChars ? `${chars.slice(0, firstInputChars).join('')}…` : chars.join('');
}

export type SessionRecord = z.infer<typeof sessionRecordSchema>;

/** One row of the index and of `sessions list --json` (DESIGN.md §1). */
export const sessionSummarySchema = z.object({
  session_id: z.string(),
  /** Absent for unnamed sessions (and rows written before names). */
  name: z.string().optional(),
  workflow_name: z.string(),
  status: statusSchema,
  pattern_type: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  steps_done: z.number().int(),
  steps_total: z.number().int(),
  tokens: tokensSchema,
  cwd: z.string(),
  variables: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  stop_reason: z.string().nullable(),
  last_response: z.string(),
  /** The start of its first step's input (session record's first_input); absent in older rows. */
  first_input: z.string().optional(),
  /** Why the session's files could not be read; such rows are listed, never hidden. */
  damaged: z.string().nullable(),
});

export type SessionSummary = z.infer<typeof sessionSummarySchema>;

export function summarize(record: SessionRecord): SessionSummary {
  return {
    session_id: record.session_id,
    ...(record.name === undefined ? {} : { name: record.name }),
    workflow_name: record.workflow_name,
    status: record.checkpoint.status,
    pattern_type: record.pattern_type,
    created_at: record.created_at,
    updated_at: record.updated_at,
    steps_done: record.checkpoint.steps_done,
    steps_total: record.checkpoint.steps_total,
    tokens: record.checkpoint.tokens,
    cwd: record.cwd,
    variables: record.variables,
    stop_reason: record.checkpoint.stop_reason,
    last_response: record.checkpoint.last_response_preview,
    ...(record.first_input === undefined ? {} : { first_input: record.first_input }),
    damaged: null,
  };
}

/** The row of a session whose session.json cannot be read: listed as damaged, with the reason. */
export function damagedSummary(id: string, reason: string, modifiedAt: string): SessionSummary {
  return {
    session_id: id,
    workflow_name: '(damaged)',
    status: 'failed',
    pattern_type: 'chain',
    created_at: modifiedAt,
    updated_at: modifiedAt,
    steps_done: 0,
    steps_total: 0,
    tokens: { input: 0, output: 0 },
    cwd: '',
    variables: {},
    stop_reason: null,
    last_response: '',
    damaged: reason,
  };
}
