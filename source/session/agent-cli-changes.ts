import { resolve } from 'node:path';
import { folderManifest } from '../agent-cli/folder-manifest.js';
import { snapshotChanges } from '../engine/agent-cli.js';
import type { BlobStore } from '../engine/blob-store.js';
import type { FileChange } from '../engine/environment-check.js';
import { regularFileNow } from '../engine/file-now.js';
import type { SessionProgress } from '../engine/session-progress.js';
import { sha256 } from '../engine/blob-store.js';
import { defaultHome } from '../store/acode-home.js';

/**
 * The files an agent CLI step that was under way when acode stopped has changed so far: its working
 * folder now against the snapshot journaled before the step's first attempt. They join the changed
 * files a resume asks about ([C]ontinue/[A]bort/[V]iew), since the CLI may have edited them before the
 * crash; files the session already tracks are compared by the usual check instead.
 */
export function agentCliChanges(progress: SessionProgress, blobs: BlobStore, env: NodeJS.ProcessEnv = process.env): FileChange[] {
  const changes: FileChange[] = [];
  for (const step of Object.keys(progress.in_progress)) {
    const run = progress.agent_cli[step];
    if (!run?.tree || progress.completed[step]) continue;
    let before: Record<string, string>;
    try {
      before = JSON.parse(blobs.get(run.tree).toString('utf8')) as Record<string, string>;
    } catch {
      continue; // a snapshot acode cannot read names nothing; requireSnapshots does not demand it
    }
    const now = folderManifest(run.cwd, [resolve(defaultHome(env))], undefined, before);
    for (const change of snapshotChanges(before, now)) {
      if (progress.files[change.path]) continue;
      const file = regularFileNow(change.path);
      changes.push({
        path: change.path,
        kind: change.before === null ? 'created' : file ? 'modified' : 'deleted',
        size: file?.content.length ?? 0,
        mtime_ms: file?.mtimeMs ?? null,
        seen: { hash: change.before, blob: null, op: 'write', step, at: '' },
        hash: file ? sha256(file.content) : null,
        note: `${run.cli} was working in this folder when acode stopped, and may have changed it`,
      });
    }
  }
  return changes;
}
