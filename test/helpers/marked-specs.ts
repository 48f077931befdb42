/**
 * Specs for the openai provider whose every step input starts with `[[<step id>]]`, so the loopback
 * server can tell which step a request is for (see `requestStep`), and quotes the responses it
 * depends on, so an answer given in the wrong context changes the artifact.
 */

const header = (name: string, maxParallel?: number) => [
  'version: 0',
  `name: ${name}`,
  'runtime:',
  '  provider: openai',
  '  model_id: test-model',
  ...(maxParallel ? [`  max_parallel: ${maxParallel}`] : []),
  'agents:',
  '  worker:',
  '    prompt: "You are a careful worker."',
  'inputs:',
  '  values:',
  '    topic: durability',
];

/** The step id a request is for, from the `[[id]]` its user message starts with. */
export function requestStep(user: string): string {
  return /\[\[([^\]]+)\]\]/.exec(user)?.[1] ?? '?';
}

export function markedChain(steps: number): { spec: string; ids: string[] } {
  const ids = Array.from({ length: steps }, (_, k) => String(k));
  return {
    ids,
    spec: [
      ...header('marked-chain'),
      'pattern:',
      '  type: chain',
      '  config:',
      '    steps:',
      ...ids.map((id, k) => `      - { agent: worker, input: "[[${id}]] ${k === 0 ? 'research {{ topic }}' : `continue from {{ steps[${k - 1}].response }}`}" }`),
      'outputs:',
      '  artifacts:',
      '    - path: ./out/report.md',
      '      from: "{% for s in steps %}{{ s.index }}: {{ s.response }}\\n{% endfor %}final: {{ last_response }}\\n"',
      '',
    ].join('\n'),
  };
}

/** Task id → the tasks it depends on. */
export const diamondTasks: Record<string, string[]> = {
  scope: [],
  history: ['scope'],
  market: ['scope'],
  risks: ['scope'],
  costs: ['scope'],
  pros: ['history', 'market'],
  cons: ['risks', 'costs'],
  verdict: ['pros', 'cons', 'market'],
};

export function markedWorkflow(maxParallel: number): { spec: string; ids: string[] } {
  const ids = Object.keys(diamondTasks);
  const task = (id: string) => {
    const deps = diamondTasks[id]!;
    const input = `[[${id}]] ${deps.length ? deps.map((dep) => `{{ tasks.${dep}.response }}`).join(' + ') : 'scope {{ topic }}'}`;
    return [`      - id: ${id}`, '        agent: worker', ...(deps.length ? [`        deps: [${deps.join(', ')}]`] : []), `        input: "${input}"`];
  };
  return {
    ids,
    spec: [
      ...header('marked-workflow', maxParallel),
      'pattern:',
      '  type: workflow',
      '  config:',
      '    tasks:',
      ...ids.flatMap(task),
      'outputs:',
      '  artifacts:',
      '    - path: ./out/report.md',
      `      from: "${ids.map((id) => `${id}: {{ tasks.${id}.response }}`).join('\\n')}\\nfinal: {{ last_response }}\\n"`,
      '',
    ].join('\n'),
  };
}

/**
 * Branches of the lengths given (named a, b, c …); a step may be an approval (`'hitl'` at its index
 * in `approvals`). The reduce quotes every branch's answer.
 */
export function markedParallel(lengths: number[], options: { maxParallel?: number; approvals?: Record<string, number> } = {}): { spec: string; ids: string[]; branches: string[] } {
  const branches = lengths.map((_, i) => String.fromCharCode(97 + i));
  const ids = [...branches.flatMap((b, i) => Array.from({ length: lengths[i]! }, (_, n) => `${b}/${n}`)), 'reduce'];
  const step = (branch: string, n: number) => {
    if (options.approvals?.[branch] === n) return [`          - type: hitl`, `            prompt: "Approve branch ${branch}?"`, `            context_display: "{{ steps[${n - 1}].response }}"`, '            default: approved'];
    return [`          - agent: worker`, `            input: "[[${branch}/${n}]] ${n === 0 ? `branch ${branch} on {{ topic }}` : `continue from {{ steps[${n - 1}].response }}`}"`];
  };
  return {
    ids,
    branches,
    spec: [
      ...header('marked-parallel', options.maxParallel),
      'pattern:',
      '  type: parallel',
      '  config:',
      '    branches:',
      ...branches.flatMap((b, i) => [`      - id: ${b}`, '        steps:', ...Array.from({ length: lengths[i]! }, (_, n) => step(b, n)).flat()]),
      '    reduce:',
      '      agent: worker',
      `      input: "[[reduce]] ${branches.map((b) => `{{ branches.${b}.response }}`).join(' + ')}"`,
      'outputs:',
      '  artifacts:',
      '    - path: ./out/report.md',
      `      from: "${branches.map((b) => `${b}: {{ branches.${b}.response }}`).join('\\n')}\\nfinal: {{ last_response }}\\n"`,
      '',
    ].join('\n'),
  };
}
