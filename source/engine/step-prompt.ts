import type { WorkflowSpec } from '../spec/schema.js';
import type { StepPrompt } from './events.js';
import type { PatternStep } from './pattern.js';
import type { Variables } from './template-context.js';

/** An agent step: what a prompt is rendered for. */
export type AgentStep = PatternStep & { work: { kind: 'agent' } };

/**
 * A step's prompt as rendered: its agent's system prompt and its input (with what the pattern
 * appends), each through `render(source, field)` — the executor's says where a template failed.
 * One function for the run and for `fork --dry-run`, so the preview asks what the run will ask.
 */
export function renderStepPrompt(spec: WorkflowSpec, step: AgentStep, variables: Variables, render: (source: string, field: string) => string): StepPrompt {
  const system = render(spec.agents[step.work.agent]?.prompt ?? '', `agents.${step.work.agent}.prompt`);
  const append = typeof step.work.append === 'function' ? step.work.append(variables) : (step.work.append ?? '');
  return { system, input: render(step.work.input, 'input') + append };
}
