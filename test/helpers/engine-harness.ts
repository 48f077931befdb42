import { MemoryBlobStore } from '../../source/engine/blob-store.js';
import { SessionExecutor } from '../../source/engine/session-executor.js';
import type { EngineEvent } from '../../source/engine/events.js';
import type { Journal } from '../../source/engine/journal.js';
import type { AutoResumePolicy } from '../../source/engine/resume-strategy.js';
import type { ApprovalDesk } from '../../source/engine/approval.js';
import { initialProgress, replayEvents, type SessionProgress } from '../../source/engine/session-progress.js';
import { mergeVariables } from '../../source/engine/template-context.js';
import { createProvider } from '../../source/providers/create-provider.js';
import { loadSpecText } from '../../source/spec/load-spec.js';
import { patternFor } from '../../source/engine/patterns/pattern-for.js';

/** A journal that keeps events in order, as the event log would. */
export class MemoryJournal implements Journal {
  readonly events: EngineEvent[] = [];
  record(event: EngineEvent): void {
    this.events.push(event);
  }
}

/** Builds an executor for spec text with the real provider the spec names. */
export function executorFor(specText: string, options: { cwd: string; journal?: MemoryJournal; progress?: SessionProgress; autoResume?: AutoResumePolicy; blobs?: MemoryBlobStore; approvals?: ApprovalDesk }) {
  const { spec } = loadSpecText(specText, 'spec.yaml');
  const journal = options.journal ?? new MemoryJournal();
  const blobs = options.blobs ?? new MemoryBlobStore();
  const executor = new SessionExecutor({
    sessionId: 'test-session',
    spec,
    variables: mergeVariables(spec, {}),
    provider: createProvider(spec, {}),
    journal,
    blobs,
    progress: options.progress ?? initialProgress(patternFor(spec).shape(initialProgress(0)).length),
    cwd: options.cwd,
    autoResume: options.autoResume,
    approvals: options.approvals,
  });
  return { executor, journal, spec, blobs };
}

/** Progress rebuilt from a journal, as `acode resume` rebuilds it from events.jsonl. */
export function replayed(journal: MemoryJournal, steps: number): SessionProgress {
  return replayEvents(journal.events, steps);
}
