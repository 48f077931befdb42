/** A scripted N-step chain with 2 KiB responses, each step quoting the previous one. */
export function benchSpec(steps: number, faults = ''): string {
  const lines = Array.from({ length: steps }, (_, k) =>
    k === 0 ? '      - { agent: worker, input: "Step 0 on {{ topic }}" }' : `      - { agent: worker, input: "Step ${k}: {{ steps[${k - 1}].response | truncate(120) }}" }`,
  );
  return `version: 0
name: bench-${steps}
runtime:
  provider: scripted
  scripted:
    latency_ms: 0
    response_bytes: 2048
${faults}
agents:
  worker: { prompt: "You are a worker." }
inputs: { values: { topic: benchmarks } }
pattern:
  type: chain
  config:
    steps:
${lines.join('\n')}
`;
}
