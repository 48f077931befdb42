import { secrets } from './redactor.js';

/**
 * Fields that carry what a model, a tool or a person wrote: a response, tool arguments and output,
 * an approval's text. They lose only the registered secrets, never credential-shaped text — code a
 * model writes may hold `api_key = "changeme123"`, and an artifact or a later step must get it as
 * written. Every other field (messages, errors, paths) loses both.
 */
const contentFields = new Set(['response', 'args', 'output', 'prompt', 'context', 'default_response']);

/**
 * An engine event as it may be kept, shown and stored: one rule for the executor (before anyone
 * sees the event) and for the log writer (whoever built the event), so what is replayed from the
 * log is what the run itself applied.
 */
export function redactEvent<T extends object>(event: T): T {
  let copy: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(event)) {
    const clean = secrets.redactDeep(value, contentFields.has(key));
    if (clean !== value) (copy ??= { ...(event as Record<string, unknown>) })[key] = clean;
  }
  return (copy ?? event) as T;
}

/**
 * A session record as session.json stores it: its checkpoint is built from events already
 * redacted (redactEvent), so it loses only the registered secrets again — a second, full pass
 * would make it differ from the replayed log; the rest (variables, runtime) loses both.
 */
export function redactSessionRecord<T extends { checkpoint: unknown }>(record: T): T {
  const { checkpoint, ...rest } = record;
  return { ...secrets.redactDeep(rest), checkpoint: secrets.redactDeep(checkpoint, true) } as unknown as T;
}
