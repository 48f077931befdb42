import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentCliRunner } from '../../source/agent-cli/agent-cli-runner.js';
import { fakeAgentClis } from '../helpers/fake-agent-clis.js';
import { tempDir } from '../helpers/temp-dir.js';

const ticks = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
};
const boot = () => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();

const groups: number[] = [];
afterEach(() => {
  for (const pgid of groups.splice(0)) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

describe.runIf(process.platform === 'linux')('whether a journaled agent CLI still runs', () => {
  it('is the same process only with the same start time in the same boot: a pid reused after a reboot is never ended', () => {
    const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    groups.push(child.pid!);
    const port = agentCliRunner();
    expect(port.running(child.pid!, `${ticks(child.pid!)}@${boot()}`)).toBe(true);
    // Another boot: start times count from boot, so equal ticks prove nothing.
    expect(port.running(child.pid!, `${ticks(child.pid!)}@00000000-0000-0000-0000-000000000000`)).toBe(false);
    expect(port.running(child.pid!, `${Number(ticks(child.pid!)) + 1}@${boot()}`)).toBe(false);
    expect(port.running(child.pid!, '')).toBe(false);
  });
});

describe('an agent CLI starting', () => {
  it('gets its prompt only once its pid is journaled: a kill -9 of acode in between leaves no unknown CLI at work', async () => {
    const root = tempDir();
    const fakes = fakeAgentClis(root);
    const saved = { ...process.env };
    Object.assign(process.env, fakes.env);
    try {
      let promptedBeforeJournaled: boolean | undefined;
      const outcome = await agentCliRunner().run({ cli: 'claude', prompt: 'PHASE:one go', cwd: root, withhold: [], signal: new AbortController().signal }, (update) => {
        if (update.kind !== 'spawned') return;
        groups.push(update.pid);
        // A journal slow to flush: the CLI must still be waiting for its task when the flush ends.
        return new Promise<void>((resolve) =>
          setTimeout(() => {
            promptedBeforeJournaled = existsSync(join(fakes.state, 'calls.jsonl'));
            resolve();
          }, 700),
        );
      });
      expect(promptedBeforeJournaled).toBe(false);
      expect(outcome.text).toContain('one done by claude');
    } finally {
      process.env = saved;
    }
  });
});
