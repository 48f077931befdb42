import type { WorkflowSpec } from '../../spec/schema.js';
import type { ToolSpec } from '../provider.js';
import { builtinTools, isBuiltinTool, toolId } from './tool-specs.js';
import { executorsOf, executorToolSpec } from './http-executors.js';

/**
 * The tools an agent may call, as strands-cli decides: the agent's own `tools` list if it has one
 * (native tool names count even when not declared), otherwise every tool under `tools.python`.
 * A tool acode does not have never gets here: validation refuses the spec that names it.
 */
export function agentTools(spec: WorkflowSpec, agentId: string): ToolSpec[] {
  const executors = executorsOf(spec);
  return [...agentToolNames(spec, agentId)].flatMap((name) => {
    const executor = executors.get(name);
    return isBuiltinTool(name) ? [builtinTools[name]] : executor ? [executorToolSpec(executor)] : [];
  });
}

/** The names of the tools an agent is given (see agentTools); without a list of its own, every HTTP executor too. */
export function agentToolNames(spec: WorkflowSpec, agentId: string): Set<string> {
  const declared = [...(spec.tools?.python ?? []).map((entry) => toolId(typeof entry === 'string' ? entry : entry.callable)), ...executorsOf(spec).keys()];
  return new Set(spec.agents[agentId]?.tools?.map(toolId) ?? declared);
}

/** The hosts http_request may reach: `security.guardrails.allow_hosts` (strands-cli declares none). */
export function allowedHosts(spec: WorkflowSpec): string[] {
  return spec.security?.guardrails?.allow_hosts ?? [];
}

/** Folders besides the working directory that tools may touch: the spec's `env.mounts`. */
export function extraRoots(spec: WorkflowSpec): string[] {
  return Object.values(spec.env?.mounts ?? {});
}
