import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { modelEndpoint } from '../providers/create-provider.js';
import { checkModels, type ModelCheck } from '../providers/model-list.js';
import { printable } from '../printable-text.js';
import { redact } from '../secrets/redactor.js';
import type { WorkflowSpec } from '../spec/schema.js';
import type { ResumeCandidate } from './prepare-resume.js';

/**
 * The distinct models the resume will call: those of the agents of its in-progress and remaining
 * steps (an agent's own model_id, else the runtime's). Every agent's when the pattern creates its
 * steps while it runs and the plan cannot name them yet.
 */
export function modelsToCheck(candidate: Pick<ResumeCandidate, 'spec' | 'plan'>): string[] {
  const { spec, plan } = candidate;
  const modelOf = (agent: string) => spec.agents[agent]?.model_id ?? spec.runtime.model_id;
  const ahead = [...plan.in_progress, ...plan.remaining].map((step) => step.agent).filter((agent) => spec.agents[agent]);
  const agents = ahead.length > 0 ? ahead : plan.in_progress.length + plan.remaining.length > 0 ? Object.keys(spec.agents) : [];
  const summaries = agents.length ? [spec.context_policy?.compaction?.summarization_model] : [];
  return [...new Set([...agents.map(modelOf), ...summaries].filter((model): model is string => Boolean(model)))];
}

/**
 * Asks the provider whether it still offers the models the rest of the session needs (the scripted
 * provider has none to ask; `resume.validate_environment: false` skips it).
 */
export async function checkResumeModels(candidate: Pick<ResumeCandidate, 'spec' | 'plan' | 'config'>, env: NodeJS.ProcessEnv): Promise<ModelCheck[]> {
  if (!candidate.config.validate_environment) return [];
  const endpoint = modelEndpoint(candidate.spec, env);
  if (!endpoint) return [];
  return checkModels(endpoint, modelsToCheck(candidate));
}

/**
 * One check as the validation line says it: "llama3.2 offered by http://localhost:11434/v1". Redacted
 * and printable whatever the server sent: the dry run prints it as it is.
 */
export function modelLine(check: ModelCheck): string {
  return printable(redact(lineOf(check)));
}

function lineOf(check: ModelCheck): string {
  const { model, host, availability: a } = check;
  switch (a.kind) {
    case 'offered':
      return `${model} offered by ${host}`;
    case 'missing':
      return `${model} not offered by ${host}${a.offered.length ? ` (it offers ${a.offered.join(', ')}${a.more ? ', …' : ''})` : ''}`;
    case 'unreachable':
      return `${model}: cannot reach ${host} (${a.detail})`;
    case 'unchecked':
      return `${model}: not checked, ${host} answered ${a.detail}`;
  }
}

/**
 * A model the provider does not offer, or a provider that cannot be reached, stops the resume
 * before it takes the lock (exit 17) — unless the person says to go on (`--yes`, or y on a
 * terminal). Undefined when every model is there (or could not be asked about for another reason).
 */
export function modelProblem(checks: readonly ModelCheck[], sessionId: string, ollama: boolean): AcodeError | undefined {
  const missing = checks.filter((c) => c.availability.kind === 'missing');
  const unreachable = checks.filter((c) => c.availability.kind === 'unreachable');
  if (missing.length === 0 && unreachable.length === 0) return undefined;
  const fix = missing.length
    ? ollama
      ? `pull it ('ollama pull ${missing[0]!.model}')`
      : 'serve it there (the session keeps the models of the spec it started with)'
    : 'start the server, or check the network';
  return new AcodeError(
    redact(`session ${sessionId} was not resumed: model ${[...missing, ...unreachable].map(modelLine).join('; ')}. ${fix[0]!.toUpperCase()}${fix.slice(1)}, then resume; 'acode resume ${sessionId} --yes' goes on anyway`),
    ExitCode.environmentInvalid,
    'ACODE-RESUME-004',
  );
}

/** Every model a new run of `spec` may call: each agent's own model_id, else the runtime's, and the one that writes summaries. */
function runModels(spec: WorkflowSpec): string[] {
  const models = [...Object.values(spec.agents).map((agent) => agent.model_id ?? spec.runtime.model_id), spec.context_policy?.compaction?.summarization_model];
  return [...new Set(models.filter((model): model is string => Boolean(model)))];
}

/**
 * Before a new run creates its session: one request (`GET /models`; Anthropic's per model) asking
 * whether the provider offers the spec's models. Undefined when there is nothing to ask: the
 * scripted provider has no models.
 */
export async function checkRunModels(spec: WorkflowSpec, env: NodeJS.ProcessEnv): Promise<ModelCheck[] | undefined> {
  const endpoint = modelEndpoint(spec, env);
  if (!endpoint) return undefined;
  return checkModels(endpoint, runModels(spec));
}

/**
 * A model the provider answered it does not offer stops a new run before anything is created
 * (exit 17). A server that cannot be reached does not: the run's own retries and pause say so,
 * and it stays resumable once the server is up.
 */
export function runModelProblem(checks: readonly ModelCheck[], specPath: string, ollama: boolean): AcodeError | undefined {
  const missing = checks.filter((c) => c.availability.kind === 'missing');
  if (missing.length === 0) return undefined;
  const setIt = `set model_id in ${specPath} to one it offers`;
  const fix = ollama ? `Pull it ('ollama pull ${missing[0]!.model}'), or ${setIt}` : `${setIt[0]!.toUpperCase()}${setIt.slice(1)}`;
  return new AcodeError(
    redact(`model ${missing.map(modelLine).join('; ')}. ${fix}; nothing was run ('--offline' skips this check)`),
    ExitCode.environmentInvalid,
  );
}
