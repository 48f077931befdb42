import { z } from '../validation/z.js';
import { specSchema } from './schema.js';

/** Where the committed copy lives in the package, for `# yaml-language-server: $schema=…` lines. */
export const jsonSchemaFile = 'schema/acode-spec.schema.json';

/** Drops `additionalProperties: false` everywhere: acode warns about keys it does not know and runs the spec, so an editor must not call them errors. */
function openObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(openObjects);
  if (node === null || typeof node !== 'object') return node;
  const entries = Object.entries(node).filter(([key, value]) => !(key === 'additionalProperties' && value === false));
  return Object.fromEntries(entries.map(([key, value]) => [key, openObjects(value)]));
}

/**
 * The workflow spec's JSON Schema (draft-07, which editors' YAML plugins read), generated from the
 * zod schema acode validates with: as the spec is written (defaults make keys optional), its
 * properties named for completion; every spec acode runs validates against it.
 */
export function specJsonSchema(): Record<string, unknown> {
  const generated = openObjects(z.toJSONSchema(specSchema, { target: 'draft-7', io: 'input', unrepresentable: 'any' })) as { properties: { agents: { additionalProperties: unknown } } };
  const { agents } = generated.properties;
  // An agent may be strands-cli's `$ref: ./agents/x.yaml`, read in before the spec is validated.
  agents.additionalProperties = { anyOf: [agents.additionalProperties, { type: 'object', required: ['$ref'] }] };
  return {
    ...generated,
    title: 'acode workflow spec',
    description: 'A strands-cli spec v0 workflow as acode runs it (acode validate <spec.yaml> checks the rest: templates, references, artifact paths).',
  };
}

/** The schema as `acode schema` prints it and the package ships it. */
export function specJsonSchemaText(): string {
  return `${JSON.stringify(specJsonSchema(), null, 2)}\n`;
}
