import type { WorkflowSpec } from '../spec/schema.js';
import { sha256 } from './blob-store.js';
import type { EngineEvent, StepPrompt } from './events.js';
import type { SessionProgress } from './session-progress.js';
import type { StepId } from './step-id.js';
import { agentTools } from './tools/agent-tools.js';

/** What decides a step's answer: its prompt as rendered, its agent, and the provider, server, model and tools it asks with. */
export interface StepInput {
  system: string;
  input: string;
  agent: string;
  provider: string;
  host: string | null;
  model: string | null;
  tools: string[];
}

export function stepInput(spec: WorkflowSpec, agent: string, prompt: StepPrompt): StepInput {
  return {
    system: prompt.system,
    input: prompt.input,
    agent,
    provider: spec.runtime.provider,
    host: spec.runtime.host ?? null,
    model: spec.agents[agent]?.model_id ?? spec.runtime.model_id ?? null,
    tools: agentTools(spec, agent).map((tool) => tool.name).sort(),
  };
}

/**
 * A step's input as one key: two steps with one key ask the same of the same model, so
 * `acode fork --spec` reuses a completed step whose key is unchanged.
 */
export function stepInputKey(input: StepInput): string {
  return sha256(JSON.stringify([input.system, input.input, input.agent, input.provider, input.host, input.model, input.tools]));
}

/** Why a step asked `now` is not the source's step asked `before`: the first part that differs, in words. */
export function inputChange(before: StepInput, now: StepInput): string {
  if (before.agent !== now.agent) return `its agent changed (${before.agent} → ${now.agent})`;
  if (before.system !== now.system) return `its agent's system prompt changed`;
  if (before.input !== now.input) return 'its input changed';
  if (before.model !== now.model) return `its model changed (${before.model ?? 'none'} → ${now.model ?? 'none'})`;
  if (before.provider !== now.provider || before.host !== now.host) return 'its provider or server changed';
  return `its tools changed (${before.tools.join(', ') || 'none'} → ${now.tools.join(', ') || 'none'})`;
}

/** A completed step of another session that a run may take instead of calling the model, when its input key is the step's own. */
export interface ReusableStep {
  key: string;
  input: StepInput;
  response: string;
  cut: boolean;
  from_session: string;
}

export type ReusableSteps = ReadonlyMap<StepId, ReusableStep>;

/**
 * The completed steps of a session that a fork running an edited spec may take: each of `candidates`
 * that completed there after a step_started recording its prompt, keyed as `spec` — the source's —
 * asked it; and why each other step of the source is not one (a log written before prompts were kept,
 * a step itself reused, one `--from-step` runs again).
 */
export function reusableSteps(events: readonly EngineEvent[], progress: SessionProgress, spec: WorkflowSpec, candidates: readonly StepId[], from: string): { reusable: Map<StepId, ReusableStep>; unusable: Map<StepId, string> } {
  const prompts = new Map<StepId, StepPrompt>();
  for (const event of events) if (event.type === 'step_started' && event.prompt) prompts.set(event.step, event.prompt);
  const reusable = new Map<StepId, ReusableStep>();
  const unusable = new Map<StepId, string>();
  for (const [id, done] of Object.entries(progress.completed)) {
    const prompt = prompts.get(id);
    if (!candidates.includes(id)) unusable.set(id, '--from-step runs it again');
    else if (!prompt) unusable.set(id, `session ${from} kept no prompt for it (a step reused there, or a log written before prompts were kept)`);
    else {
      const input = stepInput(spec, done.agent, prompt);
      reusable.set(id, { key: stepInputKey(input), input, response: done.response, cut: done.cut === true, from_session: from });
    }
  }
  return { reusable, unusable };
}
