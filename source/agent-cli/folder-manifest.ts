import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '../engine/blob-store.js';

/** Path (absolute) → sha256 of its content: what a folder held at one moment. */
export type FolderManifest = Record<string, string>;

/** Folders no agent's edit is looked for in: version control and installed packages (large, and not the work). */
const skipped = new Set(['.git', 'node_modules', '.hg', '.svn', '.venv', '__pycache__']);
/** Past these a manifest stops growing: a change-check of a huge tree would cost more than the step. */
const mostFiles = 20_000;
const largestFile = 8 * 1024 * 1024;

/**
 * What an agent CLI could edit, as hashes: every regular file under `root` (not following links; a
 * file past 8 MiB by its size and mtime), skipping version control, installed packages and the
 * folders in `exclude` (acode's own home, the artifacts folder). Compared before and after a CLI
 * step, it says which files the CLI touched; compared with the folder now, what an interrupted CLI
 * touched before acode stopped.
 */
export function folderManifest(root: string, exclude: readonly string[] = []): FolderManifest {
  const manifest: FolderManifest = {};
  let count = 0;
  const walk = (dir: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names.sort()) {
      if (count >= mostFiles) return;
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
          manifest[path] = stat.size > largestFile ? `size:${stat.size}:mtime:${stat.mtimeMs}` : sha256(readFileSync(path));
        } catch {
          // unreadable: not something the agent changed that acode could show
        }
      }
    }
  };
  walk(root);
  return manifest;
}
