import { isAbsolute, relative, resolve } from 'node:path';
import type { WorkflowSpec } from '../spec/schema.js';
import { renderTemplate } from '../spec/template.js';
import type { StepRecord } from './session-progress.js';
import { artifactContext, type Variables } from './template-context.js';

export interface RenderedArtifact {
  path: string;
  content: Buffer;
}

export class ArtifactPathError extends Error {
  override readonly name = 'ArtifactPathError';
}

/** Renders `outputs.artifacts`; paths must stay inside the working directory. Writes nothing. */
export function renderArtifacts(spec: WorkflowSpec, variables: Variables, results: readonly StepRecord[], cwd: string): RenderedArtifact[] {
  const context = artifactContext(variables, results);
  return (spec.outputs?.artifacts ?? []).map((artifact) => {
    const rendered = renderTemplate(artifact.path, context).trim();
    const target = resolve(cwd, rendered);
    const inside = relative(cwd, target);
    if (!rendered || inside.startsWith('..') || isAbsolute(inside)) {
      throw new ArtifactPathError(`artifact path '${rendered}' is outside the working directory ${cwd}; use a relative path such as ./artifacts/report.md`);
    }
    return { path: target, content: Buffer.from(renderTemplate(artifact.from, context)) };
  });
}
