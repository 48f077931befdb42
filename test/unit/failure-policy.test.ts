import { describe, expect, it } from 'vitest';
import { failurePolicyDelay } from '../../source/engine/failure-policy.js';
import { checkSpecText } from '../../source/spec/load-spec.js';
import { executorFor } from '../helpers/engine-harness.js';
import { openAiServerPerTest } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * runtime.failure_policy (strands-cli's retries and backoff) sets acode's one retry loop: how many
 * automatic retries a step gets in a row and the waits between them (real HTTP, OpenAI protocol).
 */

const fixture = openAiServerPerTest();

const spec = (baseUrl: string, policy: string) => `version: 0
name: flaky
runtime:
  provider: openai
  model_id: m1
  host: "${baseUrl}"
  failure_policy: ${policy}
agents:
  writer: { prompt: "You write." }
pattern:
  type: chain
  config:
    steps:
      - { agent: writer, input: "Step 0: write" }
`;

/** The server fails the first `failures` calls with 503 (a server error waiting may fix), then answers. */
function failFirst(failures: number) {
  const { server, baseUrl } = fixture.current();
  let calls = 0;
  server.handler = () => (++calls <= failures ? { kind: 'error', status: 503, body: { error: { message: 'upstream unavailable' } } } : { kind: 'answer', text: 'done' });
  return { server, baseUrl };
}

describe('runtime.failure_policy', () => {
  it('waits as strands-cli does: exponential 1 s, 2 s, 4 s within wait_min..wait_max; constant; jittered between half and all', () => {
    const exponential = failurePolicyDelay({ retries: 5, backoff: 'exponential', wait_min: 1, wait_max: 5 });
    expect([1, 2, 3, 4, 5].map((n) => exponential(n, Math.random))).toEqual([1000, 2000, 4000, 5000, 5000]);
    expect(failurePolicyDelay({ retries: 2, backoff: 'exponential', wait_min: 3, wait_max: 60 })(1, Math.random)).toBe(3000);
    expect(failurePolicyDelay({ retries: 2, backoff: 'constant', wait_min: 2, wait_max: 60 })(4, Math.random)).toBe(2000);
    const jittered = failurePolicyDelay({ retries: 2, backoff: 'jittered', wait_min: 0, wait_max: 60 });
    expect([jittered(3, () => 0), jittered(3, () => 1)]).toEqual([2000, 4000]);
  });

  it('retries a failing step as many times as `retries` says, waiting the constant wait_min between tries', async () => {
    const { server, baseUrl } = failFirst(2);
    const { executor, journal } = executorFor(spec(baseUrl, '{ retries: 2, backoff: constant, wait_min: 0.2, wait_max: 30 }'), { cwd: tempDir() });
    expect((await executor.run()).status).toBe('completed');
    expect(server.requests).toHaveLength(3);
    const gaps = server.requests.slice(1).map((r, i) => r.at - server.requests[i]!.at);
    // The policy's 0.2 s each; acode's own backoff would have waited 0.5–1 s, then 1–2 s (1.5 s at least).
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(190);
    expect(gaps[0]! + gaps[1]!).toBeLessThan(1200);
    const attempts = journal.events.filter((e) => e.type === 'resume_attempt');
    expect(attempts.map((e) => e.type === 'resume_attempt' && [e.attempt, e.max_attempts])).toEqual([[1, 2], [2, 2], [2, 2]]);
  });

  it('pauses, resumable, once the retries are spent: no second loop retries behind it', async () => {
    const { server, baseUrl } = failFirst(10);
    const { executor } = executorFor(spec(baseUrl, '{ retries: 1, backoff: constant, wait_min: 0 }'), { cwd: tempDir() });
    const summary = await executor.run();
    expect(summary.status).toBe('paused');
    expect(server.requests).toHaveLength(2);
  });

  it('with retries: 0 pauses at the first failure, saying why', async () => {
    const { server, baseUrl } = failFirst(10);
    const { executor, journal } = executorFor(spec(baseUrl, '{ retries: 0 }'), { cwd: tempDir() });
    expect((await executor.run()).status).toBe('paused');
    expect(server.requests).toHaveLength(1);
    expect(journal.events.find((e) => e.type === 'session_paused')).toMatchObject({ reason: 'provider_error', message: expect.stringContaining('no automatic retry: runtime.failure_policy.retries is 0') });
  });

  it("lets a server's retry-after come before the policy's wait", async () => {
    const { server, baseUrl } = fixture.current();
    let calls = 0;
    server.handler = () => (++calls === 1 ? { kind: 'error', status: 429, body: { error: { message: 'slow down' } }, headers: { 'retry-after': '0' } } : { kind: 'answer', text: 'done' });
    const { executor } = executorFor(spec(baseUrl, '{ retries: 1, backoff: constant, wait_min: 30, wait_max: 30 }'), { cwd: tempDir() });
    const started = Date.now();
    expect((await executor.run()).status).toBe('completed');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('refuses wait_min above wait_max at its line', () => {
    const { problems } = checkSpecText(spec('http://127.0.0.1:9/v1', '{ wait_min: 10, wait_max: 2 }'), 'spec.yaml');
    expect(problems).toContainEqual(expect.objectContaining({ severity: 'error', line: 7, message: expect.stringContaining('wait_min must not be above wait_max') }));
  });
});
