import { it } from 'vitest';
import { killAndResumeUntilTrials } from '../helpers/deciding-kills.js';

it('graph, killed with SIGKILL at random 50 times and resumed: always completes, byte-identical to an uninterrupted run, no decision or finished step asked again', async () => {
  await killAndResumeUntilTrials('graph');
}, 300_000);
