import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

const mounted: string[] = [];

function run(args: string[]): { ok: boolean; why: string } {
  const result = spawnSync(args[0]!, args.slice(1), { encoding: 'utf8' });
  return { ok: result.status === 0, why: (result.stderr || result.error?.message || `exit ${result.status}`).trim() };
}

/**
 * Why a tmpfs cannot be mounted here (not root, no CAP_SYS_ADMIN, no mount binary), or null when it
 * can: tried once with a real mount, so a test that needs one is skipped with the reason printed.
 */
export const tmpfsUnavailable: string | null = (() => {
  if (process.platform !== 'linux') return `tmpfs mounts need Linux (this is ${process.platform})`;
  const dir = mkdtempSync(join(tmpdir(), 'acode-tmpfs-probe-'));
  try {
    const mount = run(['mount', '-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir]);
    if (!mount.ok) return `cannot mount a tmpfs: ${mount.why}`;
    run(['umount', dir]);
    return null;
  } finally {
    rmdirSync(dir);
  }
})();
if (tmpfsUnavailable) console.log(`skipping the full-disk and read-only tests: ${tmpfsUnavailable}`);

/** A fresh tmpfs of `size` (e.g. '3m'), unmounted and removed after the test. */
export function smallTmpfs(size: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'acode-tmpfs-'));
  const mount = run(['mount', '-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'tmpfs', dir]);
  if (!mount.ok) throw new Error(`mount tmpfs on ${dir}: ${mount.why}`);
  mounted.push(dir);
  return dir;
}

/** Remounts a tmpfs made by smallTmpfs read-only (or read-write again). */
export function remount(dir: string, mode: 'ro' | 'rw'): void {
  const result = run(['mount', '-o', `remount,${mode}`, dir]);
  if (!result.ok) throw new Error(`remount ${mode} ${dir}: ${result.why}`);
}

afterEach(() => {
  for (const dir of mounted.splice(0)) {
    run(['umount', dir]);
    rmdirSync(dir);
  }
});
