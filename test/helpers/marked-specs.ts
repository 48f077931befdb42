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

/** A reply the loopback server gives a marked request, or undefined for its usual deterministic answer. */
export type MarkedAnswer = (step: string) => string | undefined;

const footer = (from: string) => ['outputs:', '  artifacts:', '    - path: ./out/report.md', `      from: "${from}"`, ''];

/** The router answers route `deep`; its three steps read the router's answer and each other. */
export function markedRouting(): { spec: string; ids: string[]; answer: MarkedAnswer } {
  return {
    ids: ['router', 'deep/0', 'deep/1', 'deep/2'],
    answer: (step) => (step === 'router' ? 'Looks deep to me: {"route": "deep"}' : undefined),
    spec: [
      ...header('marked-routing'),
      'pattern:',
      '  type: routing',
      '  config:',
      '    router: { agent: worker, input: "[[router]] classify {{ topic }}" }',
      '    routes:',
      '      shallow: { then: [ { agent: worker, input: "[[shallow/0]] {{ topic }}" } ] }',
      '      deep:',
      '        then:',
      '          - { agent: worker, input: "[[deep/0]] {{ router.response }} on {{ topic }}" }',
      '          - { agent: worker, input: "[[deep/1]] continue from {{ steps[0].response }}" }',
      '          - { agent: worker, input: "[[deep/2]] continue from {{ steps[1].response }}" }',
      ...footer('route {{ chosen_route }}\\n{% for s in steps %}{{ s.index }}: {{ s.response }}\\n{% endfor %}final: {{ last_response }}\\n'),
    ].join('\n'),
  };
}

/** Drafts score 41, 42, then 90 at the third evaluation: three drafts, three evaluations. */
export function markedEvaluator(): { spec: string; ids: string[]; answer: MarkedAnswer } {
  return {
    ids: ['draft/1', 'eval/1', 'draft/2', 'eval/2', 'draft/3', 'eval/3'],
    answer: (step) => {
      const k = /^eval\/(\d+)$/.exec(step)?.[1];
      return k === undefined ? undefined : JSON.stringify({ score: Number(k) >= 3 ? 90 : 40 + Number(k), issues: [`issue ${k}`], fixes: [`fix ${k}`] });
    },
    spec: [
      // The producer's own prompt is its first request (strands-cli's way), so it carries the first draft's marker.
      ...header('marked-evaluator').flatMap((line) => (line.startsWith('    prompt:') ? ['    prompt: "[[draft/1]] write about {{ topic }}"', '  critic:', '    prompt: "You score drafts."'] : [line])),
      'pattern:',
      '  type: evaluator_optimizer',
      '  config:',
      '    producer: worker',
      '    evaluator: { agent: critic, input: "[[eval/{{ iteration }}]] score {{ draft }}" }',
      '    accept: { min_score: 85, max_iters: 5 }',
      '    revise_prompt: "[[draft/{{ iteration }}]] revise {{ draft }} ({{ evaluation.score }}: {{ evaluation.issues | join(\\", \\") }})"',
      ...footer('{{ last_response }}\\nscore {{ final_score }} after {{ iterations }}\\n{% for h in history %}{{ h.iteration }}={{ h.score }} {% endfor %}\\n'),
    ].join('\n'),
  };
}

/** The plan names `workers` subtasks, run `maxWorkers` at once, then a reduce quotes them all. */
export function markedOrchestrator(workers: number, maxWorkers: number): { spec: string; ids: string[]; answer: MarkedAnswer } {
  const ids = ['plan', ...Array.from({ length: workers }, (_, i) => `worker/${i}`), 'reduce'];
  return {
    ids,
    answer: (step) => (step === 'plan' ? JSON.stringify(Array.from({ length: workers }, (_, i) => ({ task: `[[worker/${i}]] part ${i} of durability` }))) : undefined),
    spec: [
      ...header('marked-orchestrator', maxWorkers),
      // The orchestrator's request is strands-cli's fixed text with the variables as JSON: the marker rides in them.
      '    marker: "[[plan]]"',
      'pattern:',
      '  type: orchestrator_workers',
      '  config:',
      `    orchestrator: { agent: worker, limits: { max_workers: ${maxWorkers} } }`,
      '    worker_template: { agent: worker }',
      '    reduce: { agent: worker, input: "[[reduce]] {% for w in workers %}{{ w.response }} + {% endfor %}" }',
      ...footer('{% for w in workers %}{{ w.task }}: {{ w.response }}\\n{% endfor %}final: {{ last_response }}\\n'),
    ].join('\n'),
  };
}

/** write → review, back to write until the third review approves, then finish: seven node visits. */
export function markedGraph(): { spec: string; ids: string[]; answer: MarkedAnswer } {
  const visit = (node: string) => `[[${node}{% if nodes.${node}.iteration %}@{{ nodes.${node}.iteration + 1 }}{% endif %}]]`;
  return {
    ids: ['write', 'review', 'write@2', 'review@2', 'write@3', 'review@3', 'finish'],
    answer: (step) => (step.startsWith('review') ? (step === 'review@3' ? 'APPROVED' : `needs work (${step})`) : undefined),
    spec: [
      ...header('marked-graph'),
      'pattern:',
      '  type: graph',
      '  config:',
      '    max_iterations: 4',
      '    nodes:',
      `      write: { agent: worker, input: "${visit('write')} write {{ topic }} {{ nodes.review.response }}" }`,
      `      review: { agent: worker, input: "${visit('review')} review {{ nodes.write.response }}" }`,
      '      finish: { agent: worker, input: "[[finish]] ship {{ nodes.write.response }}" }',
      '    edges:',
      '      - { from: write, to: review }',
      '      - from: review',
      '        choose:',
      '          - { when: "{{ \'approved\' in nodes.review.response.lower() }}", to: finish }',
      '          - { when: else, to: write }',
      ...footer('{{ execution_path | join(\\" > \\") }}\\n{% for id, n in nodes.items() %}{{ id }}: {{ n.response }}\\n{% endfor %}final: {{ last_response }}\\n'),
    ].join('\n'),
  };
}
