import { describe, expect, it } from 'vitest';
import { stepCalled, stepIdOfName, stepName, stepNamed, stepNamesText } from '../../source/engine/step-names.js';

describe('one name per step, in every view and every flag', () => {
  it('counts positions from 1 where the stored id counts them from 0', () => {
    expect(stepName('chain', '0')).toBe('1');
    expect(stepName('parallel', 'industry/0')).toBe('industry/1');
    expect(stepName('parallel', 'reduce')).toBe('reduce');
    expect(stepName('routing', 'technical/2')).toBe('technical/3');
    expect(stepName('routing', 'router#2')).toBe('router#2');
    expect(stepName('orchestrator_workers', 'worker/0')).toBe('worker/1');
    expect(stepName('orchestrator_workers', 'worker@2/4')).toBe('worker@2/5');
    expect(stepName('orchestrator_workers', 'plan@2')).toBe('plan@2');
  });

  it('leaves ids that count from 1 or hold no position as they are', () => {
    // An evaluator counts iterations from 1; a graph's visits too; a task id is the spec's own.
    expect(stepName('evaluator_optimizer', 'draft/1')).toBe('draft/1');
    expect(stepName('evaluator_optimizer', 'eval/2#2')).toBe('eval/2#2');
    expect(stepName('graph', 'review@3')).toBe('review@3');
    expect(stepName('workflow', 'step/0')).toBe('step/0');
    expect(stepName('workflow', '3')).toBe('3');
  });

  it('turns every name back into the id it was made from', () => {
    const cases: [string, string][] = [
      ['chain', '0'], ['chain', '11'], ['parallel', 'a/b/0'], ['parallel', 'reduce'], ['routing', 'technical/9'],
      ['orchestrator_workers', 'worker@3/0'], ['evaluator_optimizer', 'draft/2'], ['graph', 'n@2'], ['workflow', 'x/0'],
    ];
    for (const [pattern, id] of cases) expect(stepIdOfName(pattern, stepName(pattern, id))).toBe(id);
  });

  it('refuses a stored 0-based id as a name instead of taking it for another step', () => {
    const steps = [{ id: 'web/0' }, { id: 'web/1' }, { id: 'reduce' }];
    expect(stepNamed('parallel', steps, 'web/1')).toBe('web/0');
    expect(stepNamed('parallel', steps, 'web/2')).toBe('web/1');
    expect(stepNamed('parallel', steps, 'web/0')).toBeUndefined();
    expect(stepNamed('parallel', steps, 'web/3')).toBeUndefined();
    expect(stepNamed('chain', [{ id: '0' }, { id: '1' }], '0')).toBeUndefined();
    expect(stepNamed('chain', [{ id: '0' }, { id: '1' }], '2')).toBe('1');
    expect(stepNamesText('parallel', steps)).toBe('web/1, web/2, reduce');
    expect(stepNamesText('chain', [{ id: '0' }, { id: '1' }])).toBe('1-2');
  });

  it('names a step in messages by the name --step takes: step 2, step web/1, step worker/3; a workflow says task', () => {
    expect(stepCalled('chain', '1')).toBe('step 2');
    expect(stepCalled('parallel', 'web/0')).toBe('step web/1');
    expect(stepCalled('parallel', 'reduce')).toBe('step reduce');
    expect(stepCalled('routing', 'technical/1')).toBe('step technical/2');
    expect(stepCalled('orchestrator_workers', 'worker/2')).toBe('step worker/3');
    // A task's name is its id: "task 2" is the task called 2, never read as the second step.
    expect(stepCalled('workflow', '2')).toBe('task 2');
    expect(stepCalled('workflow', 'overview')).toBe('task overview');
  });
});
