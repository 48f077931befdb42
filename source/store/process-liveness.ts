import { readFileSync } from 'node:fs';

/** What /proc/<pid>/stat says of a process: its state letter, its process group, its start time (clock ticks since boot). */
export interface ProcessStat {
  state: string;
  group: number;
  start: string;
}

/** /proc/<pid>/stat read past the parenthesised command name (which may hold spaces); undefined without such a process or without /proc. */
export function processStat(pid: number | string): ProcessStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', group: Number(fields[2]), start: fields[19] ?? '' };
  } catch {
    return undefined;
  }
}

/**
 * A zombie (state Z, or X while it is being reaped) has exited; only its parent has not collected
 * it yet — in a container without an init a killed process can stay a zombie for good.
 */
export const isExited = (stat: ProcessStat): boolean => stat.state === 'Z' || stat.state === 'X';

/** Whether process `pid` (on this host) still runs: it exists and is not a zombie. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // kill(pid, 0) succeeds on a zombie: ask /proc what state the process is in.
  const stat = processStat(pid);
  return !stat || !isExited(stat);
}

/** /proc/<pid>/stat start time (field 22): tells a live process from one that was given a dead one's pid. */
export function processStart(pid: number): string | null {
  return processStat(pid)?.start || null;
}
