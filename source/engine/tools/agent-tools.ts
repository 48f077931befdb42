import type { WorkflowSpec } from '../../spec/schema.js';
import type { ToolSpec } from '../provider.js';
import { builtinTools, isBuiltinTool, toolId } from './tool-specs.js';

/**
 * The tools an agent may call, as strands-cli decides: the agent's own `tools` list if it has one
 * (native tool names count even when not declared), otherwise every tool under `tools.python`.
 * Tools acode does not have are left out (validation warned about them).
 */
export function agentTools(spec: WorkflowSpec, agentId: string): ToolSpec[] {
  const declared = (spec.tools?.python ?? []).map((entry) => toolId(typeof entry === 'string' ? entry : entry.callable));
  const wanted = spec.agents[agentId]?.tools?.map(toolId) ?? declared;
  return [...new Set(wanted)].filter(isBuiltinTool).map((name) => builtinTools[name]);
}

/** Folders besides the working directory that tools may touch: the spec's `env.mounts`. */
export function extraRoots(spec: WorkflowSpec): string[] {
  return Object.values(spec.env?.mounts ?? {});
}
