import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { isAbsolute, relative, resolve, dirname } from 'node:path';
import type { WorkflowSpec } from '../spec/schema.js';
import { renderTemplate } from '../spec/template.js';
import { writeFileDurable } from '../store/durable-file.js';
import type { StepRecord } from './session-progress.js';
import { artifactContext, type Variables } from './template-context.js';

export interface WrittenArtifact {
  path: string;
  bytes: number;
  sha256: string;
}

export class ArtifactPathError extends Error {
  override readonly name = 'ArtifactPathError';
}

/** Renders `outputs.artifacts` and writes each atomically; paths stay inside the working directory. */
export function writeArtifacts(spec: WorkflowSpec, variables: Variables, results: readonly StepRecord[], cwd: string): WrittenArtifact[] {
  const context = artifactContext(variables, results);
  return (spec.outputs?.artifacts ?? []).map((artifact) => {
    const rendered = renderTemplate(artifact.path, context).trim();
    const target = resolve(cwd, rendered);
    const inside = relative(cwd, target);
    if (!rendered || inside.startsWith('..') || isAbsolute(inside)) {
      throw new ArtifactPathError(`artifact path '${rendered}' is outside the working directory ${cwd}; use a relative path such as ./artifacts/report.md`);
    }
    const content = Buffer.from(renderTemplate(artifact.from, context));
    mkdirSync(dirname(target), { recursive: true });
    writeFileDurable(target, content, 0o666);
    return { path: target, bytes: content.length, sha256: createHash('sha256').update(content).digest('hex') };
  });
}
