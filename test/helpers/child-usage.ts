import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What a node child used, as it said when it exited. */
export interface ChildUsage {
  /** Peak resident memory. */
  rssMb: number;
  /** User and system CPU time: unlike wall time, it does not grow when other work shares the machine. */
  cpuMs: number;
}

/**
 * A probe a node child loads with `--import` (NODE_OPTIONS reaches a CLI started through a shell,
 * as in tmux): as it exits, it writes its peak RSS and CPU time into `dir`. `read` throws if the
 * child never wrote it (killed before it could exit).
 */
export function usageProbe(dir: string): { nodeOptions: string; read(): ChildUsage } {
  const probe = join(dir, 'usage-probe.mjs');
  const out = join(dir, 'usage.json');
  writeFileSync(
    probe,
    `import { writeFileSync } from 'node:fs';
process.on('exit', () => {
  const { maxRSS, userCPUTime, systemCPUTime } = process.resourceUsage();
  writeFileSync(${JSON.stringify(out)}, JSON.stringify({ rssMb: maxRSS / 1024, cpuMs: (userCPUTime + systemCPUTime) / 1000 }));
});
`,
  );
  return { nodeOptions: `--import=${probe}`, read: () => JSON.parse(readFileSync(out, 'utf8')) as ChildUsage };
}
