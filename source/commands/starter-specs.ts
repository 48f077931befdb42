import type { initProviders } from '../command-table.js';

export type StarterProvider = (typeof initProviders)[number];

const runtimes: Record<StarterProvider, string> = {
  scripted: `runtime:
  # Offline and deterministic: canned answers, no network. Switch to openai or ollama for a real model
  # (acode init --provider openai|ollama writes that variant).
  provider: scripted
  scripted:
    latency_ms: 1500
    responses:
      researcher: "Findings on {{ topic }}: three facts worth knowing."
      writer: "# {{ topic }}\\n\\nA short report built on the research."`,
  openai: `runtime:
  # Any OpenAI-compatible endpoint: the key comes from OPENAI_API_KEY (never written to disk), the
  # base URL from host: or OPENAI_BASE_URL (default OpenAI's).
  provider: openai
  model_id: gpt-4o-mini
  budgets:
    max_tokens: 20000`,
  ollama: `runtime:
  # A local Ollama (ollama pull llama3.2 first); host defaults to http://localhost:11434.
  provider: ollama
  model_id: llama3.2
  budgets:
    max_tokens: 20000`,
};

/** A two-step chain for `acode init`, with `provider`'s runtime; `schemaRef` points an editor at the spec's JSON Schema. */
export function starterSpec(provider: StarterProvider, schemaRef: string | undefined): string {
  return `${schemaRef ? `# yaml-language-server: $schema=${schemaRef}\n` : ''}# A starter workflow written by 'acode init': a researcher, then a writer who reads its findings.
# Run it with: acode run <this file> --var topic="durable agents"
version: 0
name: starter-chain
description: Research a topic, then write a short report on it
${runtimes[provider]}
agents:
  researcher:
    prompt: You are a research assistant. List the key facts about the topic, briefly.
  writer:
    prompt: You are a technical writer. Write a short, clear report.
inputs:
  values:
    topic: durable agent workflows
pattern:
  type: chain
  config:
    steps:
      - agent: researcher
        input: "Research: {{ topic }}"
      - agent: writer
        input: "Write a report on {{ topic }} from these findings:\\n{{ steps[0].response }}"
outputs:
  artifacts:
    - path: "{{ topic | replace(' ', '-') | lower }}-report.md"
      from: "{{ last_response }}"
`;
}
