import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { baseName, indexFiles, legacyIndexName, logName } from '../../source/store/index-log.js';

/** The base file readers use now (the highest generation, else an older acode's index.json). */
export function indexBasePath(home: string): string {
  const files = indexFiles(home);
  const generation = files.bases.at(-1);
  return join(home, generation !== undefined ? baseName(generation) : legacyIndexName);
}

/** Every index file of the home (bases, logs, index.json), as names. */
export function indexFileNames(home: string): string[] {
  const files = indexFiles(home);
  return [...files.bases.map(baseName), ...files.logs.map(logName), ...(files.legacy ? [legacyIndexName] : [])];
}

/** The text of every index file and of the head: what a search of the index on disk finds. */
export function indexText(home: string): string {
  return [...indexFileNames(home), 'index-head.json'].map((name) => readFileSync(join(home, name), 'utf8')).join('\n');
}

/** Removes the index (bases, logs, index.json), as a user might: acode rebuilds it from the session folders. */
export function removeIndex(home: string): void {
  for (const name of indexFileNames(home)) rmSync(join(home, name));
}
