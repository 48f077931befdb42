import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseTempName, type TempName } from './durable-file.js';
import { processAlive } from './process-liveness.js';

/** Where a session's writers may have left temp files, and whose they are. */
export interface TempFileScope {
  sessionId: string;
  /** ACODE_HOME: index temp files of writers that died are removed from it. */
  home: string;
  /** `sessions/<id>`: the session's own files (session.json, spec, blobs/). */
  sessionDir: string;
  /** Folders of the user's that hold files the session wrote (or was writing). */
  workDirs: Iterable<string>;
}

/** Files of the home that any acode process replaces (with no session as owner): the index's bases and head. */
const isHomeFile = (name: string) => name === 'index.json' || name === 'index-head.json' || /^index\.\d+\.json$/.test(name);

/**
 * A writer that can no longer finish its temp file: dead, or this very process (whose writes are
 * synchronous, so none is under way while this runs: such a file is a dead process's, its pid reused).
 */
const writerGone = (temp: TempName) => temp.pid === process.pid || !processAlive(temp.pid);

/** Removes the regular files of `dir` whose name `isLeftover` accepts; a folder that is gone has none. */
function sweep(dir: string, isLeftover: (temp: TempName) => boolean, legacy: boolean, removed: string[]): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const temp = entry.isFile() ? parseTempName(entry.name, legacy) : null;
    if (!temp || !isLeftover(temp)) continue;
    rmSync(join(dir, entry.name), { force: true });
    removed.push(join(dir, entry.name));
  }
}

/**
 * Removes the temp files a session's earlier runs left when they were killed mid-write: those its
 * name carries (`.<name>.acode-<session id>.<pid>.<n>.tmp`) beside the files it wrote and in its
 * own folder, and in the home the index temp files of processes that died. Only the holder of the
 * session's lock may call it: then no live process of this session writes any more (one that lost
 * the lock finds its temp file gone and cannot rename it into place). Another session's temp
 * files, and anything acode did not name, are never touched. Returns the paths removed.
 */
export function removeLeftoverTempFiles(scope: TempFileScope): string[] {
  const removed: string[] = [];
  const ours = (temp: TempName) => temp.owner === scope.sessionId;
  for (const dir of new Set(scope.workDirs)) sweep(dir, ours, false, removed);
  // The session's folder is acode's alone: unnamed temp files of dead writers there are its too (older versions named none).
  const inSessionDir = (temp: TempName) => ours(temp) || (temp.owner === null && writerGone(temp));
  sweep(scope.sessionDir, inSessionDir, true, removed);
  sweep(join(scope.sessionDir, 'blobs'), inSessionDir, true, removed);
  sweep(scope.home, (temp) => temp.owner === null && isHomeFile(temp.target) && writerGone(temp), true, removed);
  return removed;
}
