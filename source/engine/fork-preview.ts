import type { WorkflowSpec } from '../spec/schema.js';
import { renderTemplate, TemplateError } from '../spec/template.js';
import type { EngineEvent } from './events.js';
import type { Pattern } from './pattern.js';
import { applyEvent, initialProgress } from './session-progress.js';
import type { StepId } from './step-id.js';
import { stepName } from './step-names.js';
import { inputChange, stepInput, stepInputKey, type ReusableSteps } from './step-input-key.js';
import { renderStepPrompt, type AgentStep } from './step-prompt.js';
import type { Variables } from './template-context.js';

/** One step of a `fork --spec --dry-run`: whether the fork would reuse it, and why, in words. */
export interface ForkPreviewStep {
  /** The step's name as every view shows it and `--from-step` takes it (step-names.ts). */
  step: string;
  title: string;
  agent: string;
  reused: boolean;
  why: string;
}

/**
 * What `acode fork --spec` would reuse, found without running anything: the edited spec's pattern
 * walked as the run would walk it, each ready step's prompt rendered from the answers reused so far
 * and its input key compared with the source's step. A step that would run ends the walk along its
 * path (what follows it reads an answer not known yet): those are listed as decided when the run
 * reaches them.
 */
export function previewFork(pattern: Pattern, spec: WorkflowSpec, variables: Variables, reusable: ReusableSteps, unusable: ReadonlyMap<StepId, string>, from: string): ForkPreviewStep[] {
  const progress = initialProgress(pattern.shape(initialProgress(0)).length);
  const lines = new Map<StepId, Omit<ForkPreviewStep, 'title' | 'step'>>();
  let eventId = 0;
  for (;;) {
    const ready = pattern.ready(progress).filter((step) => !lines.has(step.id));
    if (ready.length === 0) break;
    let reusedAny = false;
    for (const step of ready) {
      if (step.work.kind === 'approval') {
        lines.set(step.id, { agent: 'approval', reused: false, why: 'an approval step: asks a person' });
        continue;
      }
      const agentStep = step as AgentStep;
      const agent = agentStep.work.agent;
      const source = reusable.get(step.id);
      let why: string;
      try {
        const context = pattern.context(step.id, progress, variables);
        const now = stepInput(spec, agent, renderStepPrompt(spec, agentStep, variables, (text) => renderTemplate(text, context)));
        if (source && source.key === stepInputKey(now)) {
          lines.set(step.id, { agent, reused: true, why: 'its input is unchanged' });
          const event = { type: 'step_reused', step: step.id, agent, response: source.response, from_session: from, event_id: ++eventId, ts: new Date(0).toISOString() } as EngineEvent;
          applyEvent(progress, event);
          reusedAny = true;
          continue;
        }
        why = source ? inputChange(source.input, now) : (unusable.get(step.id) ?? `no step ${stepName(pattern.type, step.id)} completed in session ${from}`);
      } catch (error) {
        if (!(error instanceof TemplateError)) throw error;
        why = `its template fails: ${error.message}`;
      }
      lines.set(step.id, { agent, reused: false, why });
    }
    if (!reusedAny) break;
  }
  return pattern.shape(progress).map((node) => ({
    title: node.title,
    ...(lines.get(node.id) ?? { agent: node.label, reused: false, why: 'decided when the run reaches it: it follows a step that runs' }),
    step: stepName(pattern.type, node.id),
  }));
}
