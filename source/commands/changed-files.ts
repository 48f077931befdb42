import { relative } from 'node:path';
import { artifactsStep, stepTitle } from '../engine/step-id.js';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import type { FileChange } from '../engine/environment-check.js';
import { formatAgo, formatBytes } from '../human-units.js';
import { printable } from '../printable-text.js';
import type { ChangeView } from '../state/changes-store.js';
import type { CommandContext } from './command-context.js';

export type ChangeDecision = 'continue' | 'abort';
export type OnChange = 'prompt' | 'continue' | 'abort';

/** `title` names a step as its pattern does (a workflow task "1" is no chain step). */
export function viewChanges(changes: readonly FileChange[], cwd: string, title: (step: string) => string = stepTitle): ChangeView[] {
  return changes.map((change) => {
    const seen = change.seen;
    const where = seen.step === artifactsStep ? 'as an artifact' : `at ${title(seen.step)}`;
    return {
      path: change.path,
      // A name a model gave a file may hold terminal controls (an OSC retitled the window): shown without them.
      shown: printable(relative(cwd, change.path) || change.path),
      kind: change.kind,
      size: change.size,
      changedAgo: change.mtime_ms === null ? null : formatAgo(change.mtime_ms),
      lastSeen: change.note ?? `the session last ${seen.op === 'write' ? 'wrote' : 'read'} it ${where}`,
    };
  });
}

/** One line per change, for terminals without the prompt and for --dry-run. */
export function changeLines(views: readonly ChangeView[]): string[] {
  return views.map((v) => `  ${v.kind.padEnd(8)}  ${v.shown}  (${v.kind === 'deleted' ? 'gone' : formatBytes(v.size)}${v.changedAgo ? `, changed ${v.changedAgo}` : ''}; ${v.lastSeen})`);
}

/**
 * Decides whether a resume goes on despite changed files: --yes / --on-change first, then a prompt
 * on a terminal (`ask`), else abort. Either way the changes are listed.
 */
export async function decideOnChanges(
  ctx: CommandContext,
  sessionId: string,
  views: readonly ChangeView[],
  options: { onChange: OnChange; ask?: () => Promise<ChangeDecision> },
): Promise<ChangeDecision> {
  const useAsk = options.onChange === 'prompt' && ctx.interactive && options.ask;
  if (!useAsk) ctx.stderr.write(`acode: ${views.length} file${views.length === 1 ? '' : 's'} changed since session ${sessionId} stopped:\n${changeLines(views).join('\n')}\n`);
  const decision: ChangeDecision = useAsk ? await options.ask!() : options.onChange === 'continue' ? 'continue' : 'abort';
  if (decision === 'abort') throw changesAborted(sessionId, views.length);
  return decision;
}

/** The refusal of a resume stopped by changed files (exit 17): said alike by the resume and by its dry run. */
export function changesAborted(sessionId: string, count: number): AcodeError {
  return new AcodeError(
    `${count} file${count === 1 ? '' : 's'} changed since session ${sessionId} stopped; aborted, nothing was changed. Review them (in a terminal, 'acode resume ${sessionId}' shows diffs), then resume with --yes or --on-change continue to go on`,
    ExitCode.environmentInvalid,
    'ACODE-RESUME-004',
  );
}
