import { z } from '../validation/z.js';

/**
 * The pieces every pattern's steps are made of: an agent step, a person's approval, an id. Each
 * pattern's own schema (spec/patterns/<type>.ts) builds its config from them.
 */
/** strands-cli's identifier: task and branch ids, used in templates as `tasks.<id>` / `branches.<id>`. */
export const identifier = z.string().regex(/^[A-Za-z0-9._:-]+$/, 'an id is letters, digits, dots, underscores, colons and hyphens (strands-cli identifier)');

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

/** The agent CLIs a step can run headless (engine/agent-cli.ts; source/agent-cli/ speaks each one's JSON stream). */
export const agentClis = ['claude', 'codex'] as const;

/**
 * A step run by an agent CLI headless (`type: agent_cli`): its own tools, its own conversation.
 * Steps naming the same `session` continue one conversation of that CLI.
 */
export const agentCliFields = {
  type: z.literal('agent_cli'),
  cli: z.enum(agentClis),
  /** What the CLI is asked (a template, seeing what an agent step's input sees). */
  prompt: z.string(),
  /** Steps naming the same session continue one conversation (the CLI's session id, passed as --resume). */
  session: identifier.optional(),
  /** Where the CLI works, relative to the session's working directory and inside it. */
  cwd: z.string().optional(),
  model: z.string().optional(),
  /** Claude's --allowedTools (codex has no such flag: its sandbox decides). */
  allowed_tools: z.array(z.string()).optional(),
  /** Extra arguments put before the prompt, as given (e.g. [--permission-mode, acceptEdits]). */
  args: z.array(z.string()).optional(),
  /** Seconds the CLI may run before its process group is ended and the attempt fails. */
  timeout: z.number().positive().optional(),
  vars: z.record(z.string(), scalar).optional(),
};
export const agentCliStepSchema = z.strictObject(agentCliFields);

export const chainStepSchema = z.union([agentStepSchema, approvalStepSchema, agentCliStepSchema], {
  error: (issue) => (issue.code === 'invalid_union' ? 'a step is an agent step (agent, input), an approval (type: hitl, prompt) or an agent CLI (type: agent_cli, cli, prompt)' : undefined),
});

/** A list the pattern cannot do without; `missing` says what belongs there when it is absent. */
export const listOf = <T extends z.ZodType>(item: T, missing: string) => z.array(item, { error: (issue) => (issue.input === undefined ? missing : undefined) });


export type ChainStep = z.infer<typeof chainStepSchema>;
export type AgentStep = z.infer<typeof agentStepSchema>;
export type ApprovalStep = z.infer<typeof approvalStepSchema>;
export type AgentCliStep = z.infer<typeof agentCliStepSchema>;
