/** How to answer a pending approval step later: the same words in the run view and in plain output. */
export function approvalHint(sessionId: string): string {
  return `Answer it with: acode resume ${sessionId} (in a terminal), or add --approve, --response "…" or --reject`;
}
