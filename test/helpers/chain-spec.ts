/** A chain spec whose step k says "Step k" and quotes step k-1's answer, so order matters. */
export function chainSpec(options: { steps: number; provider: string; host?: string; scripted?: string; name?: string; budget?: number }): string {
  const steps = Array.from({ length: options.steps }, (_, k) =>
    k === 0 ? `      - agent: worker\n        input: "Step 0: research {{ topic }}"` : `      - agent: worker\n        input: "Step ${k}: continue from {{ steps[${k - 1}].response }}"`,
  );
  return [
    'version: 0',
    `name: ${options.name ?? 'e2e-chain'}`,
    'runtime:',
    `  provider: ${options.provider}`,
    '  model_id: test-model',
    ...(options.host ? [`  host: ${options.host}`] : []),
    '  temperature: 0.2',
    '  max_tokens: 256',
    ...(options.budget ? ['  budgets:', `    max_tokens: ${options.budget}`] : []),
    ...(options.scripted ? [options.scripted] : []),
    'agents:',
    '  worker:',
    '    prompt: "You are a careful worker."',
    'inputs:',
    '  values:',
    '    topic: durability',
    'pattern:',
    '  type: chain',
    '  config:',
    '    steps:',
    ...steps,
    'outputs:',
    '  artifacts:',
    '    - path: ./out/report.md',
    '      from: |',
    '        {% for s in steps %}{{ s.index }}: {{ s.response }}',
    '        {% endfor %}final: {{ last_response }}',
    '',
  ].join('\n');
}
