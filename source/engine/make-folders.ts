import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code;

/**
 * `mkdir -p` without Node's recursive mkdir, which loops for ever where mkdir fails with ENOENT
 * although the folder above it exists (/proc, sysfs: Node 20): `--out /proc/x` held a finished run
 * at 100% CPU, and ACODE_HOME=/proc/x every command. Here each missing folder is made once, from the
 * top down, and the first failure is thrown as it came — but ENOENT, which is a refusal there (EPERM).
 */
export function makeFolders(path: string, mode?: number): void {
  const missing: string[] = [];
  for (let at = resolve(path); ; at = dirname(at)) {
    try {
      if (statSync(at).isDirectory()) break;
      throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${path}'`), { code: 'ENOTDIR', errno: -20, syscall: 'mkdir', path: at });
    } catch (error) {
      if (codeOf(error) !== 'ENOENT') throw error;
    }
    missing.push(at);
    if (dirname(at) === at) break;
  }
  for (const folder of missing.reverse()) {
    try {
      mkdirSync(folder, mode === undefined ? undefined : { mode });
    } catch (error) {
      // Made meanwhile by another process: as good.
      if (codeOf(error) === 'EEXIST' && statSync(folder).isDirectory()) continue;
      // The folder above is there (checked or made just now): the file system makes no folders here.
      if (codeOf(error) === 'ENOENT') throw Object.assign(new Error(`EPERM: the file system makes no folders in ${dirname(folder)}, mkdir '${folder}'`), { code: 'EPERM', errno: -1, syscall: 'mkdir', path: folder });
      throw error;
    }
  }
}
