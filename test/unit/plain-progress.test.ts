import { describe, expect, it } from 'vitest';
import type { EngineEventBody } from '../../source/engine/events.js';
import { stepNamer } from '../../source/engine/pattern.js';
import { patternFor } from '../../source/engine/patterns/pattern-for.js';
import { initialProgress } from '../../source/engine/session-progress.js';
import { plainLine } from '../../source/commands/plain-progress.js';
import { loadSpecFile } from '../../source/spec/load-spec.js';

const examples = 'test/fixtures/strands-examples';
const usage = { input: 10, output: 20 };

/** The plain line of each event, for a spec's real shape, as `acode run` prints them without a terminal. */
function linesFor(file: string) {
  const pattern = patternFor(loadSpecFile(`${examples}/${file}`).spec);
  const total = pattern.shape(initialProgress(0)).length;
  const name = stepNamer(pattern, initialProgress(0));
  return (event: EngineEventBody) => plainLine(event, total, name);
}

const started = (step: string, agent: string, attempt = 1): EngineEventBody => ({ type: 'step_started', step, agent, attempt, idempotency_key: `k-${step}` });
const completed = (step: string, agent: string): EngineEventBody => ({ type: 'step_completed', step, agent, attempt: 1, idempotency_key: `k-${step}`, response: 'r', usage, duration_ms: 1500 });

describe('plain progress lines', () => {
  it('name a chain step by its number, as they always have', () => {
    const line = linesFor('chain-3-step-research-openai.yaml');
    expect(line(started('1', 'analyst'))).toMatch(/^▶ step 2\/3 \w+$/);
  });

  it('name a workflow task by its id and agent, as the run view and sessions show do', () => {
    const line = linesFor('workflow-parallel-research-openai.yaml');
    expect(line(started('overview', 'researcher'))).toBe('▶ overview (researcher)');
    expect(line(started('technical', 'researcher', 2))).toBe('▶ technical (researcher) (attempt 2)');
    expect(line(completed('applications', 'researcher'))).toBe('✓ applications (researcher) 1.5s · 10 in / 20 out');
    expect(line({ type: 'step_failed', step: 'technical', attempt: 1, reason: 'provider_error', message: 'HTTP 500', retryable: false })).toBe('✗ technical (researcher): HTTP 500');
    expect(line({ type: 'file_write_recovered', step: 'synthesis', call_id: 'c', path: 'report.md', outcome: 'rolled_back', hash: null, blob: null })).toBe('  write to report.md from synthesis (researcher): torn, rolled back from its snapshot');
  });

  it('name a parallel step by its name (branch/number from 1) and its agent, and the reduce', () => {
    const line = linesFor('parallel-hitl-branch-demo.yaml');
    expect(line(started('web_research/0', 'web_scraper'))).toBe('▶ web_research/1 (web_scraper)');
    expect(line({ type: 'approval_requested', step: 'web_research/1', attempt: 1, prompt: 'Review it.', context: '', default_response: 'approved' })).toBe('◆ web_research/2 (approval): Review it.');
    expect(line(completed('docs_research/0', 'docs_reader'))).toBe('✓ docs_research/1 (docs_reader) 1.5s · 10 in / 20 out');
    expect(line(started('reduce', 'aggregator'))).toBe('▶ reduce (aggregator)');
    const next = new Date(Date.now() + 30_000).toISOString();
    expect(line({ type: 'resume_attempt', step: 'web_research/2', attempt: 1, max_attempts: 5, stop_reason: 'rate_limit', retry_after_ms: 30_000, strategy: 'same_session', message: 'HTTP 429', outcome: { kind: 'delayed', next_attempt_at: next } })).toMatch(
      /^◷ web_research\/3 \(data_validator\): rate limited \(HTTP 429\); retry 1\/5 in (30|29) s$/,
    );
  });
});
