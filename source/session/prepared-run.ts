import type { ArtifactTarget } from '../engine/artifacts.js';
import type { Pattern } from '../engine/pattern.js';
import type { BlobStore } from '../engine/blob-store.js';
import type { ContinuationPlan } from '../engine/continuation-plan.js';
import type { UncertainCall } from '../engine/effect-recovery.js';
import type { EffectRecovery, EngineEventBody } from '../engine/events.js';
import type { Journal } from '../engine/journal.js';
import type { Provider } from '../engine/provider.js';
import type { HttpExecutor } from '../engine/tools/http-executors.js';
import type { AutoResumePolicy } from '../engine/resume-strategy.js';
import type { SessionProgress } from '../engine/session-progress.js';
import type { Variables } from '../engine/template-context.js';
import type { PendingWriteState } from '../engine/write-recovery.js';
import type { ReusableSteps } from '../engine/step-input-key.js';
import type { WorkflowSpec } from '../spec/schema.js';
import type { SettledStrategy } from './in-progress-strategy.js';
import { guardJournal, type SessionLease } from './lease.js';
import type { LeasedJournal } from './repository.js';

/** How the run came about, for the command to announce it. */
export type RunIntro = StartIntro | ResumeIntro | ForkIntro;
export interface StartIntro {
  kind: 'start';
}
export interface ResumeIntro {
  kind: 'resume';
  plan: ContinuationPlan;
  pendingWrites: readonly PendingWriteState[];
  strategy: SettledStrategy;
  /** Calls cut off when the session stopped, and what the resume did with them. */
  uncertainCalls: readonly UncertainCall[];
  uncertainOutcome: EffectRecovery;
  /** Temp files of killed runs that the resume removed. */
  leftovers: readonly string[];
}
export interface ForkIntro {
  kind: 'fork';
  from: string;
  /** Steps copied in before the run; with `edited`, the source's steps that may be reused as the run reaches them. */
  reused: number;
  /** `--spec`: the edited spec the fork runs, as given. */
  edited?: string;
}

/**
 * A run ready to execute: what start, prepare-resume and fork each produce, and what one function
 * (execute.ts) runs. A saved run holds its session's lease and journal until `release`.
 */
export interface PreparedRun<Intro extends RunIntro = RunIntro> {
  readonly intro: Intro;
  readonly sessionId: string;
  /** The session's `--name`, when it has one. */
  readonly name?: string;
  /** False for --no-save-session: nothing on disk, nothing to resume. */
  readonly saved: boolean;
  readonly spec: WorkflowSpec;
  /** The spec's pattern, made once: the plan, the executor and the view all read this one. */
  readonly pattern: Pattern;
  readonly variables: Variables;
  readonly progress: SessionProgress;
  readonly cwd: string;
  readonly artifacts: ArtifactTarget;
  readonly provider: Provider;
  /** The spec's HTTP executors, their headers read from the environment of this run (`${NAME}`). */
  readonly executors: ReadonlyMap<string, HttpExecutor>;
  readonly journal: Journal;
  readonly blobs: BlobStore;
  readonly autoResume: AutoResumePolicy;
  /** `fork --spec`: the source's completed steps, each reused where a step's input key is its own. */
  readonly reusable?: ReusableSteps;
  /** Events the log gets before the first step: a lock takeover, accepted changes, settled writes, the plan, the fork. */
  readonly preamble: readonly EngineEventBody[];
  /** The session lock this run holds: heartbeated while it runs. */
  readonly lease?: SessionLease;
  /** Seals the journal when the lock is lost, so this process writes nothing more. */
  readonly onLockLost?: () => void;
  /** Lets go of the lease and closes the journal; only the first call does anything. */
  release(): void;
}

type RunFields<Intro extends RunIntro> = Omit<PreparedRun<Intro>, 'saved' | 'journal' | 'lease' | 'onLockLost' | 'release'>;

/**
 * Lets go of what a preparation holds so far: the journal first — its last snapshot (written lazily)
 * is written only while the lock is still this process's — then the lock.
 */
export function releaseHeld(lease: SessionLease, journal?: LeasedJournal): void {
  try {
    journal?.close();
  } finally {
    lease.lock.release();
  }
}

/** A run of a saved session, holding its lease and journal (guarded by the lease) until released. */
export function heldRun<Intro extends RunIntro>(fields: RunFields<Intro>, lease: SessionLease, journal: LeasedJournal): PreparedRun<Intro> {
  let released = false;
  return {
    ...fields,
    saved: true,
    journal,
    lease,
    onLockLost: guardJournal(journal, lease),
    release() {
      if (released) return;
      released = true;
      releaseHeld(lease, journal);
    },
  };
}

/** A run of --no-save-session: nothing is held. */
export function unsavedRun(fields: RunFields<StartIntro>, journal: Journal): PreparedRun<StartIntro> {
  return { ...fields, saved: false, journal, release() {} };
}
