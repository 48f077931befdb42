import { readFileSync } from 'node:fs';

/**
 * A zombie (state Z, or X while it is being reaped) has exited; only its parent has not collected
 * it yet — in a container without an init a killed process can stay a zombie for good.
 */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat[stat.lastIndexOf(')') + 2];
    return state === 'Z' || state === 'X';
  } catch {
    return false;
  }
}

/** Whether process `pid` (on this host) still runs: it exists and is not a zombie. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // kill(pid, 0) succeeds on a zombie: ask /proc what state the process is in.
  return !isZombie(pid);
}

/** /proc/<pid>/stat start time (field 22): tells a live process from one that was given a dead one's pid. */
export function processStart(pid: number): string | null {
  try {
    // After the parenthesised command name (which may hold spaces).
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}
