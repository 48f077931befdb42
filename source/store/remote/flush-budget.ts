/**
 * How long a remote operation (`sessions list --remote`, `status`, a resume's claim) gives this
 * home's pending events to reach the store before it goes on without them: a slow store holds a
 * command up that long at most, and what is left stays pending for the next push.
 */
export const flushBudgetMs = 3000;
