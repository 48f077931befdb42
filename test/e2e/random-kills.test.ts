import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recoverProgress } from '../../source/engine/replay-check.js';
import { toCheckpoint } from '../../source/engine/session-progress.js';
import { readEventLog } from '../../source/store/event-log.js';
import { chainSpec } from '../helpers/chain-spec.js';
import { runCli, startCli } from '../helpers/cli.js';
import { parseAllSessionFiles } from '../helpers/session-files.js';
import { tempDir } from '../helpers/temp-dir.js';

const steps = 40;
const spec = chainSpec({ steps, provider: 'scripted', scripted: '  scripted:\n    latency_ms: 2\n    response_bytes: 2048' });

describe('replay after random kills', () => {
  it('always reproduces the checkpoint, and the resumed run ends like an uninterrupted one', async () => {
    const reference = tempDir();
    writeFileSync(join(reference, 'spec.yaml'), spec);
    expect((await runCli(['run', 'spec.yaml'], { cwd: reference, env: { ACODE_HOME: join(reference, 'home') } })).code).toBe(0);
    const expected = readFileSync(join(reference, 'artifacts/out/report.md'));

    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 400 }), async (killAfterMs) => {
        const cwd = tempDir();
        const env = { ACODE_HOME: join(cwd, 'home') };
        writeFileSync(join(cwd, 'spec.yaml'), spec);
        const run = startCli(['run', 'spec.yaml'], { cwd, env });
        // Wait for the session to exist (its id is printed first), then kill at a random instant.
        await new Promise<void>((resolve) => run.child.stderr!.once('data', () => resolve()));
        await new Promise((resolve) => setTimeout(resolve, killAfterMs));
        run.child.kill('SIGKILL');
        await run.done;

        const [record] = parseAllSessionFiles(env.ACODE_HOME);
        const events = readEventLog(join(env.ACODE_HOME, 'sessions', record!.session_id, 'events.jsonl'));
        const progress = recoverProgress(events, record!.checkpoint); // throws if replay ≠ checkpoint
        expect(progress.steps_done).toBeGreaterThanOrEqual(record!.checkpoint.steps_done);
        if (progress.last_event_id === record!.checkpoint.last_event_id) expect(toCheckpoint(progress)).toEqual(record!.checkpoint);

        if (progress.status !== 'completed') {
          const resumed = await runCli(['resume', record!.session_id, '--json'], { cwd, env });
          expect(resumed.code, resumed.stderr).toBe(0);
          expect(JSON.parse(resumed.stdout)).toMatchObject({ steps_skipped: progress.steps_done, steps_executed: steps - progress.steps_done });
        }
        expect(readFileSync(join(cwd, 'artifacts/out/report.md')).equals(expected)).toBe(true);
      }),
      { numRuns: 12 },
    );
  }, 120_000);
});
