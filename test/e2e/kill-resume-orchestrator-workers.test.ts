import { expect, it } from 'vitest';
import { killAndResumeUntilTrials, trials } from '../helpers/deciding-kills.js';

it('orchestrator_workers, killed with SIGKILL at random 50 times and resumed: always completes, byte-identical to an uninterrupted run, no decision or finished step asked again', async () => {
  expect(await killAndResumeUntilTrials('orchestrator_workers')).toBeGreaterThanOrEqual(trials);
}, 300_000);
