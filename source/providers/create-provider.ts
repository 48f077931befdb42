import { AcodeError, ExitCode } from '../errors/acode-error.js';
import type { Provider } from '../engine/provider.js';
import type { WorkflowSpec } from '../spec/schema.js';
import { OpenAiProvider } from './openai-provider.js';
import { ScriptedProvider } from './scripted-provider.js';

const ollamaDefaultHost = 'http://localhost:11434/v1';

/** Ollama's native host (http://host:11434) serves the OpenAI API under /v1. */
function ollamaBaseUrl(host: string | undefined): string {
  if (!host) return ollamaDefaultHost;
  const url = new URL(host);
  return url.pathname === '/' || url.pathname === '' ? `${host.replace(/\/+$/, '')}/v1` : host;
}

/** The model endpoint a spec's runtime names; keys come from the environment at call time. */
export function createProvider(spec: WorkflowSpec, env: NodeJS.ProcessEnv = process.env): Provider {
  const runtime = spec.runtime;
  switch (runtime.provider) {
    case 'scripted':
      return new ScriptedProvider(runtime.scripted);
    case 'openai':
    case 'ollama': {
      const baseUrl = runtime.provider === 'ollama' ? ollamaBaseUrl(runtime.host) : (runtime.host ?? env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1');
      const agentModels = Object.fromEntries(Object.entries(spec.agents).flatMap(([id, agent]) => (agent.model_id ? [[id, agent.model_id]] : [])));
      if (!runtime.model_id && Object.keys(agentModels).length < Object.keys(spec.agents).length) throw new AcodeError(`runtime.model_id is required for provider ${runtime.provider}; add e.g. 'model_id: gpt-4o-mini' to the spec`, ExitCode.usage);
      return new OpenAiProvider({
        baseUrl,
        model: runtime.model_id ?? '',
        agentModels,
        apiKey: env.OPENAI_API_KEY || undefined,
        temperature: runtime.temperature,
        maxTokens: runtime.max_tokens,
        topP: runtime.top_p,
      });
    }
    case 'anthropic':
      throw new AcodeError("provider 'anthropic' is not available in this version of acode yet; use openai, ollama or scripted", ExitCode.usage);
  }
}
