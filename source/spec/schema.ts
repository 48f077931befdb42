import { z } from '../validation/z.js';

/**
 * The workflow spec, compatible with strands-cli spec v0 for what acode runs. Objects are strict so
 * that keys acode does not know are reported (as warnings) instead of silently dropped.
 */
const scalar = z.union([z.string(), z.number(), z.boolean()]);

const toolCallSchema = z.strictObject({
  name: z.string(),
  args: z.record(z.string(), z.unknown()).default({}),
});

const scriptedResponseSchema = z.union([
  z.string(),
  z.strictObject({ tool_calls: z.array(toolCallSchema).default([]), then: z.string() }),
]);

const faultSchema = z.strictObject({
  step: z.union([z.number().int().min(0), z.string()]),
  kind: z.enum(['crash', 'rate_limit', 'context_exhausted', 'error']),
  /**
   * crash only: at the model call (default), or inside the step's first file_write — in place
   * (file_write), or once the atomic writer's temp file is whole, before its rename (file_write_rename).
   */
  during: z.enum(['call', 'file_write', 'file_write_rename']).default('call'),
  /** crash during file_write: bytes written in place before dying (default: all of them). */
  after_bytes: z.number().int().min(0).optional(),
  retry_after_s: z.number().min(0).optional(),
  times: z.number().int().min(1).default(1),
  /** Fires at this model call of the step's conversation (1 = the first; tool rounds count up). */
  round: z.number().int().min(1).optional(),
  message: z.string().optional(),
});

const scriptedSchema = z.strictObject({
  latency_ms: z.number().int().min(0).default(0),
  response_bytes: z.number().int().min(0).default(0),
  responses: z.record(z.string(), scriptedResponseSchema).default({}),
  faults: z.array(faultSchema).default([]),
});

/** An http(s) URL as given: `127.0.0.1:8080/v1` (no scheme), port 99999, `ftp:` or a trailing space passed validation and failed five times at the first call. */
function isServerUrl(host: string): boolean {
  if (host !== host.trim() || /\s/.test(host)) return false;
  try {
    const url = new URL(host);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

const runtimeSchema = z.strictObject({
  provider: z.enum(['openai', 'ollama', 'anthropic', 'scripted']),
  model_id: z.string().optional(),
  host: z.string().refine(isServerUrl, { message: 'must be the model server\'s http:// or https:// URL, such as http://localhost:11434 (a scheme, a host, a port from 1 to 65535, no spaces)' }).optional(),
  region: z.string().optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  max_tokens: z.number().int().min(1).optional(),
  /** How many steps may run at once (workflow tasks, parallel branches); maxParallel() gives the default. */
  max_parallel: z.number().int().min(1).optional(),
  budgets: z.strictObject({ max_tokens: z.number().int().min(1).optional() }).optional(),
  scripted: scriptedSchema.optional(),
});

const agentSchema = z.strictObject({
  prompt: z.string(),
  /** Tool names as strands-cli spells them; absent = every tool under `tools.python`. */
  tools: z.array(z.string()).optional(),
  model_id: z.string().optional(),
  provider: z.string().optional(),
});

const agentStepSchema = z.strictObject({
  agent: z.string(),
  input: z.string().default(''),
  vars: z.record(z.string(), scalar).optional(),
});

/** A person's answer instead of a model's: `type: approval`, or strands-cli's `type: hitl`. */
const approvalFields = {
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
const approvalStepSchema = z.strictObject(approvalFields);

const chainStepSchema = z.union([agentStepSchema, approvalStepSchema], {
  error: (issue) => (issue.code === 'invalid_union' ? 'a step is an agent step (agent, input) or an approval (type: hitl, prompt)' : undefined),
});

/** A list the pattern cannot do without; `missing` says what belongs there when it is absent. */
const listOf = <T extends z.ZodType>(item: T, missing: string) => z.array(item, { error: (issue) => (issue.input === undefined ? missing : undefined) });

const chainPatternSchema = z.strictObject({
  type: z.literal('chain'),
  config: z.strictObject({ steps: listOf(chainStepSchema, 'a chain needs its steps here: a list of agent steps (agent, input) and approvals (type: hitl, prompt)').min(1) }),
});

/** strands-cli's identifier: task and branch ids, used in templates as `tasks.<id>` / `branches.<id>`. */
const identifier = z.string().regex(/^[A-Za-z0-9._:-]+$/, 'an id is letters, digits, dots, underscores, colons and hyphens (strands-cli identifier)');

/** Ids of the tasks that must finish first; checked against the task list after parsing. */
const depsSchema = z.array(z.string()).optional();

const agentTaskSchema = z.strictObject({
  id: identifier,
  agent: z.string(),
  input: z.string().default(''),
  deps: depsSchema,
  /** For people reading the spec and the views; never sent to the model. */
  description: z.string().optional(),
});

const approvalTaskSchema = z.strictObject({ id: identifier, deps: depsSchema, ...approvalFields });

const workflowTaskSchema = z.union([agentTaskSchema, approvalTaskSchema], {
  error: (issue) => (issue.code === 'invalid_union' ? 'a task is an agent task (id, agent, input, deps) or an approval (id, type: hitl, prompt, deps)' : undefined),
});

/** A DAG of tasks: a task starts once every task in its `deps` has finished. */
const workflowPatternSchema = z.strictObject({
  type: z.literal('workflow'),
  config: z.strictObject({ tasks: listOf(workflowTaskSchema, 'a workflow needs its tasks here: a list of tasks (id, agent, input, deps)').min(1) }),
});

/** Steps of one branch run in order, like a chain; branches run side by side. */
const branchSchema = z.strictObject({ id: identifier, steps: z.array(chainStepSchema) });

/** Branches (at least two, checked after parsing), then an optional `reduce` that sees every branch's result. */
const parallelPatternSchema = z.strictObject({
  type: z.literal('parallel'),
  config: z.strictObject({ branches: listOf(branchSchema, 'a parallel pattern needs its branches here: a list of branches (id, steps)'), reduce: chainStepSchema.optional() }),
});

const patternSchema = z.discriminatedUnion('type', [chainPatternSchema, workflowPatternSchema, parallelPatternSchema]);

const inputTypeSchema = z.union([z.string(), z.record(z.string(), z.unknown())]);

export const specSchema = z.strictObject({
  /** strands-cli accepts any integer or string (its examples say 0, 1 and 1.0.0) and does not act on it. */
  version: z.union([z.number().int(), z.string()]),
  name: z.string().min(1),
  description: z.string().optional(),
  tags: z.array(z.string()).optional(),
  runtime: runtimeSchema,
  inputs: z
    .strictObject({
      required: z.record(z.string(), inputTypeSchema).optional(),
      optional: z.record(z.string(), inputTypeSchema).optional(),
      values: z.record(z.string(), scalar).optional(),
    })
    .optional(),
  tools: z
    .strictObject({ python: z.array(z.union([z.string(), z.strictObject({ callable: z.string() })])).optional() })
    .optional(),
  /**
   * `mounts`: extra folders (name → path) that tools may touch besides the working directory.
   * `secrets`: strands-cli's secret declarations — `key` names the environment variable, `name` is
   * for display. acode reads `source: env` ones and keeps their values out of everything it stores and prints.
   */
  env: z
    .strictObject({
      secrets: z.array(z.strictObject({ key: z.string().regex(/^[A-Za-z0-9._:-]+$/), name: z.string().optional(), source: z.enum(['env', 'secrets_manager', 'ssm', 'file']) })).optional(),
      mounts: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  agents: z.record(z.string(), agentSchema),
  pattern: patternSchema,
  outputs: z
    .strictObject({
      artifacts: z.array(z.strictObject({ path: z.string(), from: z.string() })).default([]),
    })
    .optional(),
});

export type WorkflowSpec = z.infer<typeof specSchema>;
export type RuntimeSpec = WorkflowSpec['runtime'];
export type ScriptedSpec = z.infer<typeof scriptedSchema>;
export type ScriptedFault = z.infer<typeof faultSchema>;
export type ScriptedResponse = z.infer<typeof scriptedResponseSchema>;
export type ChainStep = z.infer<typeof chainStepSchema>;
export type AgentStep = z.infer<typeof agentStepSchema>;
export type ApprovalStep = z.infer<typeof approvalStepSchema>;
export type PatternSpec = WorkflowSpec['pattern'];
export type ChainPattern = z.infer<typeof chainPatternSchema>;
export type WorkflowPattern = z.infer<typeof workflowPatternSchema>;
export type ParallelPattern = z.infer<typeof parallelPatternSchema>;
export type WorkflowTask = z.infer<typeof workflowTaskSchema>;
export type AgentTask = z.infer<typeof agentTaskSchema>;
export type ApprovalTask = z.infer<typeof approvalTaskSchema>;
export type ParallelBranch = z.infer<typeof branchSchema>;

/** Pattern types strands-cli knows: one acode does not support is named in the error, not "invalid". */
export const knownPatternTypes = ['chain', 'routing', 'parallel', 'orchestrator_workers', 'evaluator_optimizer', 'graph', 'workflow'];
/** Pattern types the schema above accepts. */
export const supportedPatternTypes: readonly PatternSpec['type'][] = ['chain', 'workflow', 'parallel'];
