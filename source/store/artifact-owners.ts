import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { ArtifactOwners, ArtifactWrite } from '../engine/artifacts.js';
import { makeFolders } from '../engine/make-folders.js';
import { writeFileDurable } from './durable-file.js';

const recordSchema = z.object({ path: z.string(), session_id: z.string(), sha256: z.string() });

/**
 * `artifact-owners/<sha256 of the path>.json` in ACODE_HOME: which session last wrote the artifact at that
 * absolute path, and the sha256 of what it wrote (as its artifact_written event says). One small
 * file a path, as `names/` holds one a name, so a run's check reads one file, however many sessions
 * are stored; reading every session's event log instead would cost more with each session kept.
 */
export class ArtifactOwnerFiles implements ArtifactOwners {
  private readonly dir: string;

  constructor(home: string) {
    this.dir = join(home, 'artifact-owners');
  }

  private fileOf(path: string): string {
    return join(this.dir, `${createHash('sha256').update(path).digest('hex')}.json`);
  }

  lastWrite(path: string): ArtifactWrite | undefined {
    let text: string;
    try {
      text = readFileSync(this.fileOf(path), 'utf8');
    } catch {
      return undefined;
    }
    // A damaged record counts as none: the file is then refused without --force, never overwritten on a guess.
    let parsed;
    try {
      parsed = recordSchema.safeParse(JSON.parse(text));
    } catch {
      return undefined;
    }
    if (!parsed.success || parsed.data.path !== path) return undefined;
    return { session_id: parsed.data.session_id, sha256: parsed.data.sha256 };
  }

  recordWrite(path: string, write: ArtifactWrite): void {
    makeFolders(this.dir);
    writeFileDurable(this.fileOf(path), `${JSON.stringify({ path, ...write })}\n`);
  }
}
