import { AcodeError, ExitCode } from '../errors/acode-error.js';
import type { Provider } from '../engine/provider.js';
import type { WorkflowSpec } from '../spec/schema.js';
import { AnthropicProvider } from './anthropic-provider.js';
import { OpenAiProvider } from './openai-provider.js';
import type { HttpModelSettings } from './post-json.js';
import { registerProviderSecrets, registerSpecSecrets } from '../secrets/spec-secrets.js';
import { ScriptedProvider } from './scripted-provider.js';
import { urlWithoutCredentials } from '../secrets/url-credentials.js';

const ollamaDefaultHost = 'http://localhost:11434/v1';
const anthropicDefaultHost = 'https://api.anthropic.com';
/** Gemini's OpenAI-compatible endpoint. */
const geminiDefaultHost = 'https://generativelanguage.googleapis.com/v1beta/openai';

/** Ollama's native host (http://host:11434) serves the OpenAI API under /v1. */
function ollamaBaseUrl(host: string | undefined): string {
  if (!host) return ollamaDefaultHost;
  const url = new URL(host);
  return url.pathname === '/' || url.pathname === '' ? `${host.replace(/\/+$/, '')}/v1` : host;
}

/** Where a provider's base URL came from: what a person fixes when it cannot be reached. */
export type UrlSource = 'runtime.host' | 'OPENAI_BASE_URL' | 'ANTHROPIC_BASE_URL' | 'GEMINI_BASE_URL' | 'default';

/** What to check when the server cannot be reached, naming the setting the URL came from. */
export function unreachableHint(provider: WorkflowSpec['runtime']['provider'], source: UrlSource): string {
  if (provider === 'ollama') {
    return source === 'runtime.host' ? "is Ollama running ('ollama serve')? runtime.host in the spec says where it listens" : "is Ollama running ('ollama serve')? If it listens elsewhere than localhost:11434, set runtime.host in the spec";
  }
  if (source === 'default') return 'check the network, or point runtime.host in the spec at another server';
  return `check ${source === 'runtime.host' ? 'runtime.host in the spec' : source} and that the server is running`;
}

/** An HTTP provider's settings from the runtime; without a runtime model_id every agent must name one. */
function httpSettings(spec: WorkflowSpec, baseUrl: string, source: UrlSource, apiKey: string | undefined, example: string): HttpModelSettings {
  const { runtime } = spec;
  // The key in use is known from here on: no text acode stores or prints can carry it.
  registerProviderSecrets(apiKey, baseUrl);
  const agentModels = Object.fromEntries(Object.entries(spec.agents).flatMap(([id, agent]) => (agent.model_id ? [[id, agent.model_id]] : [])));
  if (!runtime.model_id && Object.keys(agentModels).length < Object.keys(spec.agents).length) {
    throw new AcodeError(`runtime.model_id is required for provider ${runtime.provider}; add e.g. 'model_id: ${example}' to the spec`, ExitCode.usage);
  }
  return { baseUrl, model: runtime.model_id ?? '', agentModels, apiKey, temperature: runtime.temperature, maxTokens: runtime.max_tokens, topP: runtime.top_p, unreachableHint: unreachableHint(runtime.provider, source) };
}

/** Where an HTTP provider's requests go, and with which key (from the environment). */
export interface ModelEndpoint {
  api: 'openai' | 'anthropic';
  baseUrl: string;
  source: UrlSource;
  apiKey: string | undefined;
}

/** A key as the environment holds it, without the line break a secret file leaves at its end (fetch trimmed it off too). */
function keyOf(value: string | undefined): string | undefined {
  return value?.trim() || undefined;
}

/** The HTTP endpoint a spec's runtime names; undefined for the scripted provider, which has none. */
export function modelEndpoint(spec: WorkflowSpec, env: NodeJS.ProcessEnv): ModelEndpoint | undefined {
  const runtime = spec.runtime;
  switch (runtime.provider) {
    case 'scripted':
      return undefined;
    case 'openai':
    case 'ollama': {
      const baseUrl = runtime.provider === 'ollama' ? ollamaBaseUrl(runtime.host) : (runtime.host ?? env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1');
      const source: UrlSource = runtime.host ? 'runtime.host' : runtime.provider === 'openai' && env.OPENAI_BASE_URL ? 'OPENAI_BASE_URL' : 'default';
      return { api: 'openai', baseUrl, source, apiKey: keyOf(env.OPENAI_API_KEY) };
    }
    case 'gemini': {
      // Gemini through its OpenAI-compatible endpoint: the same wire protocol, Google's key.
      const baseUrl = runtime.host ?? (env.GEMINI_BASE_URL || geminiDefaultHost);
      const source: UrlSource = runtime.host ? 'runtime.host' : env.GEMINI_BASE_URL ? 'GEMINI_BASE_URL' : 'default';
      return { api: 'openai', baseUrl, source, apiKey: keyOf(env.GEMINI_API_KEY) ?? keyOf(env.GOOGLE_API_KEY) };
    }
    case 'anthropic': {
      const baseUrl = runtime.host ?? (env.ANTHROPIC_BASE_URL || anthropicDefaultHost);
      const source: UrlSource = runtime.host ? 'runtime.host' : env.ANTHROPIC_BASE_URL ? 'ANTHROPIC_BASE_URL' : 'default';
      return { api: 'anthropic', baseUrl, source, apiKey: keyOf(env.ANTHROPIC_API_KEY) };
    }
  }
}

/**
 * The model endpoint a spec's runtime names; keys come from the environment at call time. Every
 * run, resume and fork makes its provider here, so this is where the secrets in use (the key, the
 * spec's `env.secrets`) are registered with the redactor.
 */
export function createProvider(spec: WorkflowSpec, env: NodeJS.ProcessEnv = process.env): Provider {
  registerSpecSecrets(spec, env);
  const endpoint = modelEndpoint(spec, env);
  if (!endpoint) return new ScriptedProvider(spec.runtime.scripted);
  const { api, baseUrl, source, apiKey } = endpoint;
  // Before any session exists: its copy of the spec would keep the password, and every call send it.
  const shown = urlWithoutCredentials(baseUrl);
  if (shown !== undefined) {
    throw new AcodeError(`${source === 'default' ? 'the model server URL' : source} holds a user name or password (${shown} with them removed); acode sends keys only from the environment (${api === 'openai' ? 'OPENAI_API_KEY' : 'ANTHROPIC_API_KEY'}): take them out of ${source === 'default' ? 'the URL' : source}`, ExitCode.usage);
  }
  if (api === 'openai' && spec.runtime.provider === 'gemini' && !apiKey && source === 'default') {
    throw new AcodeError('GEMINI_API_KEY is not set; export it (a key from aistudio.google.com) or point runtime.host at another server', ExitCode.usage);
  }
  // OpenAI's own API always needs a key: said before a session exists, not after ~21 s of retries of a 401.
  if (api === 'openai' && !apiKey && spec.runtime.provider === 'openai' && URL.canParse(baseUrl) && new URL(baseUrl).hostname === 'api.openai.com') {
    throw new AcodeError('OPENAI_API_KEY is not set; export it (a key from platform.openai.com), or point runtime.host (or OPENAI_BASE_URL) at a server that needs none, such as Ollama', ExitCode.usage);
  }
  if (api === 'openai') return new OpenAiProvider(httpSettings(spec, baseUrl, source, apiKey, spec.runtime.provider === 'gemini' ? 'gemini-2.5-flash' : 'gpt-4o-mini'));
  // A local proxy or test server may need no key; the real API always does, so say so before the first step.
  if (!apiKey && URL.canParse(baseUrl) && new URL(baseUrl).hostname === 'api.anthropic.com') {
    throw new AcodeError('ANTHROPIC_API_KEY is not set; export it (a key from console.anthropic.com) or point runtime.host at another server', ExitCode.usage);
  }
  return new AnthropicProvider(httpSettings(spec, baseUrl, source, apiKey, 'claude-sonnet-4-5'));
}
