import { z } from '../validation/z.js';
import { patternSchemas } from './pattern-kinds.js';
import { scalar, type AgentCliStep, type AgentStep, type ApprovalStep, type ChainStep } from './step-schemas.js';

/**
 * The workflow spec, compatible with strands-cli spec v0 for what acode runs. Objects are strict so
 * that keys acode does not know are reported (as warnings) instead of silently dropped.
 */

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

const httpExecutorSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, 'an executor id is a name: letters, digits, _ and -'),
  base_url: z.string().refine(isServerUrl, 'base_url must be an http(s) URL'),
  headers: z.record(z.string(), z.string()).optional(),
  timeout_ms: z.number().int().min(1).optional(),
  description: z.string().optional(),
  examples: z.array(z.record(z.string(), z.unknown())).optional(),
  common_endpoints: z.array(z.record(z.string(), z.unknown())).optional(),
  response_format: z.string().optional(),
  authentication_info: z.string().optional(),
});
export type HttpExecutorSpec = z.infer<typeof httpExecutorSchema>;

/**
 * One of `env.secrets`, as strands-cli declares it: `source` is required there (its schema and its
 * model have no default), and only `env` is read — by strands-cli (its capability check refuses the
 * others) and by acode. Said in words where zod's enum message named four sources as if all worked.
 */
const secretSchema = z
  .strictObject({
    key: z.string().regex(/^[A-Za-z0-9._:-]+$/),
    name: z.string().optional(),
    source: z.enum(['env', 'secrets_manager', 'ssm', 'file'], {
      error: (issue) =>
        issue.input === undefined
          ? "required, as strands-cli requires it: add 'source: env' (the value is read from the environment variable that key names)"
          : `${JSON.stringify(issue.input)} is not a secret source; acode reads 'source: env' (the environment variable that key names)`,
    }),
  })
  .refine((secret) => secret.source === 'env', {
    path: ['source'],
    error: (issue) => `${JSON.stringify((issue.input as { source?: unknown }).source)} is not read by acode, nor by strands-cli (which refuses every source but env): export the value in the environment variable that key names and write 'source: env'`,
  });

const runtimeSchema = z.strictObject({
  provider: z.enum(['openai', 'ollama', 'anthropic', 'gemini', 'scripted'], {
    error: (issue) =>
      issue.input === 'bedrock'
        ? 'provider bedrock is not supported by acode: point the spec at an OpenAI-compatible gateway to Bedrock instead (provider: openai, host: the gateway\'s https://…/v1 URL, its key in OPENAI_API_KEY)'
        : `provider ${JSON.stringify(issue.input)} is not one acode has: openai (any OpenAI-compatible server), ollama, anthropic, gemini or scripted`,
  }),
  model_id: z.string().optional(),
  host: z.string().refine(isServerUrl, { message: 'must be the model server\'s http:// or https:// URL, such as http://localhost:11434 (a scheme, a host, a port from 1 to 65535, no spaces)' }).optional(),
  region: z.string().optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  max_tokens: z.number().int().min(1).optional(),
  /** How many steps may run at once (workflow tasks, parallel branches); maxParallel() gives the default. */
  max_parallel: z.number().int().min(1).optional(),
  /**
   * Limits over the whole session, every resume included: steps completed, tokens, time spent in
   * steps. Reached, the session pauses, resumable with the
   * limit raised (acode resume <id> --set runtime.budgets.<key>=<value>); `warn_threshold` (a share
   * of each) says so once before. `max_cost_usd` is acode's own: dollars of every model call, priced
   * from the maintained price table (engine/prices.ts); a run refuses it for a model it cannot price.
   */
  budgets: z
    .strictObject({
      max_steps: z.number().int().min(1).optional(),
      max_tokens: z.number().int().min(1).optional(),
      max_duration_s: z.number().min(1).optional(),
      max_cost_usd: z.number().positive().optional(),
      warn_threshold: z.number().min(0).max(1).default(0.8),
    })
    .optional(),
  /**
   * strands-cli's retry policy for failures waiting may fix (rate limits, overloads, network
   * trouble, server errors): `retries` after the first failure (default 2), waiting `backoff`
   * between them — constant (wait_min), exponential (1 s, 2 s, 4 s … within wait_min..wait_max, as
   * strands-cli's tenacity waits) or jittered (the same, randomised). It sets the one retry loop acode
   * has (engine/failure-policy.ts); a server's retry-after still comes first.
   */
  failure_policy: z
    .strictObject({
      retries: z.number().int().min(0).default(2),
      backoff: z.enum(['constant', 'exponential', 'jittered']).default('exponential'),
      wait_min: z.number().min(0).default(1),
      wait_max: z.number().min(0).default(60),
    })
    .refine((policy) => policy.wait_min <= policy.wait_max, { message: 'wait_min must not be above wait_max (seconds between retries)', path: ['wait_min'] })
    .optional(),
  scripted: scriptedSchema.optional(),
});

/**
 * strands-cli's context_policy.compaction: before a model call whose conversation is past
 * `when_tokens_over` (estimated, default 60,000), the older part (`summary_ratio` of it, keeping the
 * `preserve_recent_messages` newest) is summarized (engine/compaction.ts). notes and retrieval are not read.
 */
const compactionSchema = z.strictObject({
  enabled: z.boolean().default(true),
  when_tokens_over: z.number().int().min(1000).optional(),
  summary_ratio: z.number().min(0).max(1).default(0.35),
  preserve_recent_messages: z.number().int().min(1).default(12),
  /** A (cheaper) model of the run's provider that writes the summaries, instead of the agent's. */
  summarization_model: z.string().min(1).optional(),
});

const agentSchema = z.strictObject({
  prompt: z.string(),
  /** Tool names as strands-cli spells them; absent = every tool under `tools.python`. */
  tools: z.array(z.string()).optional(),
  model_id: z.string().optional(),
  provider: z.string().optional(),
});

const patternSchema = z.discriminatedUnion('type', patternSchemas);

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
    .strictObject({
      python: z.array(z.union([z.string(), z.strictObject({ callable: z.string() })])).optional(),
      /**
       * strands-cli's HTTP executors: each `id` is a tool that sends `path` under `base_url`, with
       * `headers` (`${NAME}` read from env.secrets, else the environment) on every request.
       */
      http_executors: z.array(httpExecutorSchema).optional(),
    })
    .optional(),
  /**
   * `mounts`: extra folders (name → path) that tools may touch besides the working directory.
   * `secrets`: strands-cli's secret declarations — `key` names the environment variable, `name` is
   * for display. acode reads `source: env` ones and keeps their values out of everything it stores and prints.
   */
  env: z
    .strictObject({
      secrets: z.array(secretSchema).optional(),
      mounts: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  /**
   * strands-cli's security section, of which acode acts on one key of its own: `allow_hosts`, the
   * hosts http_request may reach (`api.github.com`, `*.example.com`, `127.0.0.1:8080`). strands-cli
   * lets http_request reach any host; acode reaches none the spec does not list.
   */
  security: z.strictObject({ guardrails: z.strictObject({ allow_hosts: z.array(z.string().min(1)).optional() }).optional() }).optional(),
  agents: z.record(z.string(), agentSchema),
  context_policy: z.strictObject({ compaction: compactionSchema.optional() }).optional(),
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
export type CompactionSpec = z.infer<typeof compactionSchema>;
export type ScriptedFault = z.infer<typeof faultSchema>;
export type ScriptedResponse = z.infer<typeof scriptedResponseSchema>;
export type { AgentCliStep, AgentStep, ApprovalStep, ChainStep };
export type PatternSpec = WorkflowSpec['pattern'];
export type PatternType = PatternSpec['type'];
export type ChainPattern = Extract<PatternSpec, { type: 'chain' }>;
export type WorkflowPattern = Extract<PatternSpec, { type: 'workflow' }>;
export type ParallelPattern = Extract<PatternSpec, { type: 'parallel' }>;
export type RoutingPattern = Extract<PatternSpec, { type: 'routing' }>;
export type EvaluatorOptimizerPattern = Extract<PatternSpec, { type: 'evaluator_optimizer' }>;
export type OrchestratorWorkersPattern = Extract<PatternSpec, { type: 'orchestrator_workers' }>;
export type GraphPattern = Extract<PatternSpec, { type: 'graph' }>;
export type { AgentTask, ApprovalTask, WorkflowTask } from './patterns/workflow.js';
export type { ParallelBranch } from './patterns/parallel.js';

/** Pattern types strands-cli knows: one acode does not support is named in the error, not "invalid". */
export const knownPatternTypes = ['chain', 'routing', 'parallel', 'orchestrator_workers', 'evaluator_optimizer', 'graph', 'workflow'];
/** Pattern types the schema above accepts. */
export const supportedPatternTypes: readonly PatternType[] = patternSchemas.map((schema) => schema.shape.type.value);
