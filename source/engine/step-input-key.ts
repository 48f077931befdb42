import type { WorkflowSpec } from '../spec/schema.js';
import { sha256 } from './blob-store.js';
import type { EngineEvent, StepPrompt } from './events.js';
import type { SessionProgress } from './session-progress.js';
import type { StepId } from './step-id.js';
import { agentTools } from './tools/agent-tools.js';

/**
 * What decides a step's answer, as one key: its prompt as rendered (system and input), its agent,
 * the provider, server and model it asks, and the tools it may call. Two steps with one key ask the
 * same of the same model, so `acode fork --spec` reuses a completed step whose key is unchanged.
 */
export function stepInputKey(spec: WorkflowSpec, agent: string, prompt: StepPrompt): string {
  const model = spec.agents[agent]?.model_id ?? spec.runtime.model_id ?? null;
  const tools = agentTools(spec, agent).map((tool) => tool.name).sort();
  return sha256(JSON.stringify([prompt.system, prompt.input, agent, spec.runtime.provider, spec.runtime.host ?? null, model, tools]));
}

/** A completed step of another session that a run may take instead of calling the model, when its input key is the step's own. */
export interface ReusableStep {
  key: string;
  response: string;
  cut: boolean;
  from_session: string;
}

export type ReusableSteps = ReadonlyMap<StepId, ReusableStep>;

/**
 * The completed steps of a session that a fork running an edited spec may take: each of `candidates`
 * that completed there after a step_started recording its prompt (a step of a log written before
 * prompts were kept, or one itself reused, has none: it runs), keyed as `spec` — the source's — asked it.
 */
export function reusableSteps(events: readonly EngineEvent[], progress: SessionProgress, spec: WorkflowSpec, candidates: readonly StepId[], from: string): Map<StepId, ReusableStep> {
  const prompts = new Map<StepId, StepPrompt>();
  for (const event of events) if (event.type === 'step_started' && event.prompt) prompts.set(event.step, event.prompt);
  const reusable = new Map<StepId, ReusableStep>();
  for (const id of candidates) {
    const done = progress.completed[id];
    const prompt = prompts.get(id);
    if (done && prompt) reusable.set(id, { key: stepInputKey(spec, done.agent, prompt), response: done.response, cut: done.cut === true, from_session: from });
  }
  return reusable;
}
