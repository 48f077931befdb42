/**
 * A checkpoint as acode wrote it before step ids (session schema 1): a chain position `next_step`
 * and one in-progress step by index. Read as today's shape, exactly as replaying its log gives it.
 */
export function upgradeCheckpoint(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null || !('next_step' in raw)) return raw;
  const { next_step, in_progress, ...rest } = raw as Record<string, unknown> & { in_progress?: { step?: unknown } | null };
  const running = in_progress && typeof in_progress.step === 'number' ? { ...in_progress, step: String(in_progress.step) } : null;
  return {
    ...rest,
    steps_done: next_step,
    in_progress: running ? { [running.step]: running } : {},
    // Before step ids one approval could be open: the in-progress step's.
    awaiting: rest.status === 'awaiting_approval' && running ? [running.step] : [],
  };
}
