import { z } from '../validation/z.js';

/**
 * The pieces every pattern's steps are made of: an agent step, a person's approval, an id. Each
 * pattern's own schema (spec/patterns/<type>.ts) builds its config from them.
 */
export const scalar = z.union([z.string(), z.number(), z.boolean()]);

export const agentStepSchema = z.strictObject({
  agent: z.string(),
  input: z.string().default(''),
  vars: z.record(z.string(), scalar).optional(),
});

/** A person's answer instead of a model's: `type: approval`, or strands-cli's `type: hitl`. */
export const approvalFields = {
  type: z.enum(['approval', 'hitl']),
  /** What the person is asked (a template). */
  prompt: z.string(),
  /** What they are shown to decide on, e.g. `{{ steps[0].response }}` (a template). */
  context_display: z.string().optional(),
  /** The response recorded when the person approves without typing one (default "approved"). */
  default: z.string().optional(),
  /** Accepted for strands-cli compatibility; acode waits as long as it takes. */
  timeout_seconds: z.number().optional(),
};
export const approvalStepSchema = z.strictObject(approvalFields);

export const chainStepSchema = z.union([agentStepSchema, approvalStepSchema], {
  error: (issue) => (issue.code === 'invalid_union' ? 'a step is an agent step (agent, input) or an approval (type: hitl, prompt)' : undefined),
});

/** A list the pattern cannot do without; `missing` says what belongs there when it is absent. */
export const listOf = <T extends z.ZodType>(item: T, missing: string) => z.array(item, { error: (issue) => (issue.input === undefined ? missing : undefined) });

/** strands-cli's identifier: task and branch ids, used in templates as `tasks.<id>` / `branches.<id>`. */
export const identifier = z.string().regex(/^[A-Za-z0-9._:-]+$/, 'an id is letters, digits, dots, underscores, colons and hyphens (strands-cli identifier)');

export type ChainStep = z.infer<typeof chainStepSchema>;
export type AgentStep = z.infer<typeof agentStepSchema>;
export type ApprovalStep = z.infer<typeof approvalStepSchema>;
