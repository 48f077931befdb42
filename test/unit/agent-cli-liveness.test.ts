import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { agentCliRunner } from '../../source/agent-cli/agent-cli-runner.js';

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
