import { readdirSync, readFileSync } from 'node:fs';
import { atBenchExit } from './bench-exit.js';

/** The parent of `pid` from /proc (the field after the parenthesised name, which may hold spaces), or null once it is gone. */
function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/**
 * Every live descendant of `pid`, children before grandchildren. A pty's program runs in a session
 * of its own (util-linux script calls setsid), so killing script's process group would miss it:
 * the tree is walked by parent instead.
 */
export function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const parent = parentOf(Number(name));
    if (parent !== null) children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
  }
  const found: number[] = [];
  for (let queue = [pid]; queue.length; ) {
    const next = children.get(queue.shift()!) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}

function killAll(pids: Iterable<number>): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/**
 * A spawned process the bench must not leave behind. `note()` records its descendants while it
 * lives (once it dies they are re-parented out of reach); `reap()` SIGKILLs it and every process
 * ever noted under it.
 */
export function trackTree(pid: number): { note(): void; reap(): void } {
  const tree = new Set([pid]);
  const reap = () => {
    tree.forEach((each) => descendantsOf(each).forEach((child) => tree.add(child)));
    killAll(tree);
  };
  // If the bench ends first (an error, a signal), the tree is killed then.
  const done = atBenchExit(reap);
  return {
    note: () => descendantsOf(pid).forEach((each) => tree.add(each)),
    reap: () => {
      done();
      reap();
    },
  };
}
