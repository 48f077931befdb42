import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '../engine/blob-store.js';

/** Path (absolute) → sha256 of its content: what a folder held at one moment. */
export type FolderManifest = Record<string, string>;

/** Folders no agent's edit is looked for in: version control and installed packages (large, and not the work). */
const skipped = new Set(['.git', 'node_modules', '.hg', '.svn', '.venv', '__pycache__']);
/**
 * Past these a manifest stops growing: a change-check of a huge tree would cost more than the step.
 * `files` regular files listed; `bytes` read and hashed in all (past it, and for any file past 8 MiB,
 * a file is known by its size and mtime: 20,000 files of 8 MiB would otherwise mean 160 GB read per
 * snapshot); `entries` looked at, folders included (a tree of empty folders holds no file to count).
 */
export interface ManifestLimits {
  files: number;
  bytes: number;
  entries: number;
}
const limits: ManifestLimits = { files: 20_000, bytes: 256 * 1024 * 1024, entries: 200_000 };
const largestFile = 8 * 1024 * 1024;

/**
 * What an agent CLI could edit, as hashes: every regular file under `root` (not following links; a
 * file past 8 MiB, or past the byte budget, by its size and mtime), skipping version control, installed packages and the
 * folders in `exclude` (acode's own home, the artifacts folder). Compared before and after a CLI
 * step, it says which files the CLI touched; compared with the folder now, what an interrupted CLI
 * touched before acode stopped. Given the earlier snapshot (`previous`), a file is taken the way it
 * was taken then.
 */
export function folderManifest(root: string, exclude: readonly string[] = [], most: ManifestLimits = limits, previous?: FolderManifest): FolderManifest {
  const manifest: FolderManifest = {};
  let count = 0;
  let entries = 0;
  let hashed = 0;
  const walk = (dir: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names.sort()) {
      if (count >= most.files || ++entries > most.entries) return;
      const path = join(dir, name);
      if (skipped.has(name) || exclude.some((folder) => path === folder)) continue;
      let stat;
      try {
        stat = lstatSync(path);
      } catch {
        continue;
      }
      if (stat.isDirectory()) walk(path);
      else if (stat.isFile()) {
        count++;
        try {
          // A file the earlier snapshot hashed is hashed again, one it knew by size is known by size again, whatever the budget: a file is never reported changed because others grew.
          const before = previous?.[path];
          const read = stat.size <= largestFile && (before === undefined ? hashed + stat.size <= most.bytes : !before.startsWith('size:'));
          if (read) hashed += stat.size;
          manifest[path] = read ? sha256(readFileSync(path)) : `size:${stat.size}:mtime:${stat.mtimeMs}`;
        } catch {
          // unreadable: not something the agent changed that acode could show
        }
      }
    }
  };
  walk(root);
  return manifest;
}
