import { overheadRows, type OverheadRow } from './checkpoint-overhead.js';

/** The scripted header every pattern bench spec shares: 0 ms latency, 2 KiB answers unless scripted otherwise. */
const head = (name: string, maxParallel: number, responses: string) => `version: 0
name: ${name}
runtime:
  provider: scripted
  max_parallel: ${maxParallel}
  scripted:
    latency_ms: 0
    response_bytes: 2048
    responses:
${responses}
agents:
  worker: { prompt: "You are a worker." }
  judge: { prompt: "You judge." }
inputs: { values: { topic: benchmarks } }
`;

/** An orchestrator whose plan names `workers` subtasks, `running` at once. */
export function orchestratorSpec(workers: number, running: number): string {
  const plan = JSON.stringify(Array.from({ length: workers }, (_, i) => ({ task: `part ${i}` })));
  return `${head(`bench-orchestrator-${workers}`, running, `      judge: '${plan}'`)}pattern:
  type: orchestrator_workers
  config:
    orchestrator: { agent: judge, limits: { max_workers: ${running} } }
    worker_template: { agent: worker }
`;
}

/** A router choosing a route of `steps` steps, each quoting the one before. */
function routingSpec(steps: number): string {
  const then = Array.from({ length: steps }, (_, k) => `          - { agent: worker, input: "${k === 0 ? 'Step 0 on {{ topic }}' : `Step ${k}: {{ steps[${k - 1}].response | truncate(120) }}`}" }`);
  return `${head(`bench-routing-${steps}`, 1, `      judge: '{"route": "long"}'`)}pattern:
  type: routing
  config:
    router: { agent: judge, input: "route {{ topic }}" }
    routes:
      long:
        then:
${then.join('\n')}
`;
}

/** An evaluator loop of `iterations` drafts and evaluations that never reaches its score. */
function evaluatorSpec(iterations: number): string {
  return `${head(`bench-evaluator-${iterations}`, 1, `      judge: '{"score": 10, "issues": ["more"], "fixes": ["add"]}'`)}pattern:
  type: evaluator_optimizer
  config:
    producer: worker
    evaluator: { agent: judge, input: "score {{ draft | truncate(120) }}" }
    accept: { min_score: 90, max_iters: ${iterations} }
`;
}

/** A graph going a → b → a … for `visits` visits of each, then to an end node. */
function graphSpec(visits: number): string {
  return `${head(`bench-graph-${visits}`, 1, '      judge: "unused"')}pattern:
  type: graph
  config:
    max_iterations: ${visits}
    nodes:
      a: { agent: worker, input: "a {{ nodes.b.response | truncate(120) }}" }
      b: { agent: worker, input: "b {{ nodes.a.response | truncate(120) }}" }
      end: { agent: worker, input: "end" }
    edges:
      - { from: a, to: b }
      - from: b
        choose:
          - { when: "{{ nodes.b.iteration >= ${visits - 1} }}", to: end }
          - { when: else, to: a }
`;
}

export interface PatternRow extends OverheadRow {
  pattern: string;
}

/**
 * Each pattern that decides at run time at about 100 steps, beside a 100-step chain: what durability
 * costs a step when the steps are derived from the recorded answers (the pattern walks its log
 * before every step).
 */
export async function patternOverheads(chain: string): Promise<PatternRow[]> {
  const cases = [
    { pattern: 'chain', steps: 100, text: chain },
    { pattern: 'routing', steps: 101, text: routingSpec(100) },
    { pattern: 'evaluator_optimizer', steps: 100, text: evaluatorSpec(50) },
    { pattern: 'orchestrator_workers', steps: 101, text: orchestratorSpec(100, 1) },
    { pattern: 'graph', steps: 101, text: graphSpec(50) },
  ];
  const rows = await overheadRows(cases.map(({ steps, text }) => ({ steps, runs: 7, text })));
  return rows.map((row, i) => ({ ...row, pattern: cases[i]!.pattern }));
}

/** The orchestrator fan-out: 200 workers, 16 running at once, and the process's RSS at its highest while it runs. */
export async function fanOut(): Promise<{ row: OverheadRow; peakRssMb: number; baseRssMb: number }> {
  const baseRssMb = process.memoryUsage().rss / 1024 / 1024;
  let peak = baseRssMb;
  const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss / 1024 / 1024)), 5);
  try {
    const [row] = await overheadRows([{ steps: 201, runs: 7, text: orchestratorSpec(200, 16) }]);
    return { row: row!, peakRssMb: peak, baseRssMb };
  } finally {
    clearInterval(sample);
  }
}
