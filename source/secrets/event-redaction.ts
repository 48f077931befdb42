import { secrets } from './redactor.js';

/**
 * Fields that carry what a model, a tool or a person wrote: a response, tool arguments and output,
 * an approval's text. They lose only the registered secrets, never credential-shaped text — code a
 * model writes may hold `api_key = "changeme123"`, and an artifact or a later step must get it as
 * written. So do the paths of files (`path`, environment_accepted's `files`): a resume reads and
 * restores the file at the path the log names, and a folder named like a credential
 * (`sk-learn-experiments-2024`) lost its name in the log — its files then read as deleted, a torn
 * write as unrecoverable. Every other field (messages, errors) loses both.
 */
const contentFields = new Set(['response', 'args', 'output', 'prompt', 'context', 'default_response', 'path', 'files']);

/**
 * Fields of a session record that name the person's own folders and files (where the run started,
 * its spec, its artifacts' folder, the files a fork inherited): taken from this machine, never from a
 * model or a server, and what a resume must find again — stored losing only the registered keys,
 * like a file's path. The same folder redacted of its credential shapes made `resume` refuse for
 * ever ("ran in …/[REDACTED], which no longer exists"); a registered key in a folder's name is
 * still a key, and goes (the resume then says why it cannot find the folder).
 */
const ownPathFields = new Set(['cwd', 'spec_path', 'artifacts_dir', 'artifacts_inherited', 'relocations']);

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
 * would make it differ from the replayed log; the person's own paths are kept; the rest
 * (variables, runtime, names) loses both.
 */
export function redactSessionRecord<T extends { checkpoint: unknown }>(record: T): T {
  const { checkpoint, ...rest } = record;
  allowOwnPaths(rest);
  return { ...redactKeepingOwnPaths(rest), checkpoint: secrets.redactDeep(checkpoint, true) } as unknown as T;
}

/**
 * An object of a session's (its record without the checkpoint, an index row) as stored: every field
 * loses both kinds of secret but the person's own paths, which lose only the registered keys (the
 * index's `cwd` is what the browser's "this directory" matches). The object itself when nothing changed.
 */
export function redactKeepingOwnPaths<T extends object>(value: T): T {
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const clean = secrets.redactDeep(item, ownPathFields.has(key));
    if (clean !== item) (copy ??= { ...(value as Record<string, unknown>) })[key] = clean;
  }
  return (copy ?? value) as T;
}

/**
 * Tells the redactor that a session's own paths are no credentials (Redactor.allow): what is printed
 * about the session keeps its folder's name. Called as a record is read and as it is written.
 */
export function allowOwnPaths<T extends object>(record: T): T {
  for (const [key, value] of Object.entries(record)) {
    if (!ownPathFields.has(key)) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      // relocations: { from, to } folder pairs.
      for (const path of typeof item === 'object' && item !== null ? Object.values(item as object) : [item]) if (typeof path === 'string') secrets.allow(path);
    }
  }
  return record;
}
