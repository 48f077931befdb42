import { readSnapshot, snapshotChanges, type AgentCliPort } from '../engine/agent-cli.js';
import type { BlobStore } from '../engine/blob-store.js';
import { changeNow, type FileChange } from '../engine/environment-check.js';
import type { SessionProgress } from '../engine/session-progress.js';

/**
 * The files an agent CLI step that was under way when acode stopped has changed so far: its working
 * folder now against the snapshot journaled before the step's first attempt. They join the changed
 * files a resume asks about ([C]ontinue/[A]bort/[V]iew), since the CLI may have edited them before the
 * crash; files the session already tracks are compared by the usual check instead.
 */
export function agentCliChanges(progress: SessionProgress, blobs: BlobStore, port: Pick<AgentCliPort, 'snapshot'>): FileChange[] {
  const changes: FileChange[] = [];
  for (const step of Object.keys(progress.in_progress)) {
    const run = progress.agent_cli[step];
    if (!run?.tree || progress.completed[step]) continue;
    // A snapshot acode cannot read names nothing; requireSnapshots does not demand it.
    const before = readSnapshot(blobs, run.tree);
    if (!before) continue;
    for (const { path, before: hash } of snapshotChanges(before, port.snapshot(run.cwd, before))) {
      if (progress.files[path]) continue;
      const change = changeNow(path, { hash, blob: null, op: 'write', step, at: '' });
      if (change) changes.push({ ...change, note: `${run.cli} was working in this folder when acode stopped, and may have changed it` });
    }
  }
  return changes;
}
