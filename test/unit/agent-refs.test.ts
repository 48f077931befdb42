import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkSpecText } from '../../source/spec/load-spec.js';
import { tempDir } from '../helpers/temp-dir.js';

/** agents.<id>.$ref: an atomic agent defined in another file, read relative to the spec. */

const spec = (agent: string) => `version: 0
name: refs
runtime: { provider: scripted }
agents:
  writer:
${agent}
pattern:
  type: chain
  config:
    steps:
      - { agent: writer, input: "write" }
`;

/** A spec at <dir>/specs/spec.yaml whose agent is `agent` (indented lines), and agent files under <dir>/agents. */
function layout(agent: string, files: Record<string, string>) {
  const dir = tempDir();
  mkdirSync(join(dir, 'specs'));
  mkdirSync(join(dir, 'agents'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, 'agents', name), text);
  const file = join(dir, 'specs', 'spec.yaml');
  const text = spec(agent);
  writeFileSync(file, text);
  return { check: () => checkSpecText(text, file), agentFile: (name: string) => join(dir, 'specs', '..', 'agents', name).replace('/specs/..', '') };
}

const errors = (problems: { severity: string }[]) => problems.filter((p) => p.severity === 'error');

describe('agents.<id>.$ref', () => {
  it('reads the one agent of the file, with the keys beside $ref laid over it', () => {
    const { check } = layout('    $ref: ../agents/writer.yaml\n    model_id: big-model', { 'writer.yaml': 'agents:\n  writer_v2:\n    prompt: "You write well."\n    model_id: small-model\n' });
    const { spec: loaded, problems } = check();
    expect(errors(problems)).toEqual([]);
    expect(loaded?.agents.writer).toEqual({ prompt: 'You write well.', model_id: 'big-model' });
  });

  it("places an error in the agent's own fields at the agent file's line", () => {
    const { check, agentFile } = layout('    $ref: ../agents/writer.yaml', { 'writer.yaml': 'agents:\n  writer_v2:\n    model_id: m\n    prompt: 5\n' });
    expect(errors(check().problems)).toEqual([expect.objectContaining({ file: agentFile('writer.yaml'), line: 4, column: 13, message: expect.stringContaining('agents.writer.prompt') })]);
  });

  it("places a misspelt key of the agent file at that file's line, naming the $ref", () => {
    const { check, agentFile } = layout('    $ref: ../agents/writer.yaml', { 'writer.yaml': 'agents:\n  writer_v2:\n    prompt: "You write."\n    modle_id: m\n' });
    expect(errors(check().problems)).toEqual([expect.objectContaining({ file: agentFile('writer.yaml'), line: 4, column: 5, message: expect.stringMatching(/'agents\.writer\.modle_id' \(from \.\.\/agents\/writer\.yaml\).*did you mean 'model_id'/) })]);
  });

  it("places a broken template in the agent file's prompt at its line there", () => {
    const { check, agentFile } = layout('    $ref: ../agents/writer.yaml', { 'writer.yaml': 'agents:\n  writer_v2:\n    prompt: |\n      You write.\n      {{ topic %}\n' });
    expect(errors(check().problems)).toEqual([expect.objectContaining({ file: agentFile('writer.yaml'), line: 5, message: expect.stringContaining('template agents.writer.prompt') })]);
  });

  it('places an error in an override at the spec line that sets it', () => {
    const { check } = layout('    $ref: ../agents/writer.yaml\n    model_id: 5', { 'writer.yaml': 'agents:\n  w:\n    prompt: "You write."\n' });
    expect(errors(check().problems)).toEqual([expect.objectContaining({ file: expect.stringMatching(/specs\/spec\.yaml$/), line: 7, message: expect.stringContaining('agents.writer.model_id') })]);
  });

  it('refuses a cycle back to the spec, naming where the agent file turns back', () => {
    const { check } = layout('    $ref: ../agents/writer.yaml', { 'writer.yaml': 'agents:\n  w:\n    $ref: ../specs/spec.yaml\n' });
    expect(errors(check().problems)).toEqual([expect.objectContaining({ line: 6, message: expect.stringMatching(/agents\.writer\.\$ref: \.\.\/agents\/writer\.yaml refers back to this spec at .*agents\/writer\.yaml:3:11: a cycle \(.*specs\/spec\.yaml → .*agents\/writer\.yaml → .*specs\/spec\.yaml\)/) })]);
  });

  it('refuses an agent file that names itself, and a spec that names itself, as cycles', () => {
    const self = layout('    $ref: ../agents/writer.yaml', { 'writer.yaml': 'agents:\n  w:\n    $ref: ./writer.yaml\n' });
    expect(errors(self.check().problems)).toEqual([expect.objectContaining({ message: expect.stringContaining('refers back to itself at') })]);
    const spec = layout('    $ref: ./spec.yaml', {});
    expect(errors(spec.check().problems)).toEqual([expect.objectContaining({ line: 6, message: expect.stringContaining('./spec.yaml is this spec itself: a cycle') })]);
  });

  it('refuses an agent file that refers to a third file: atomic agents are self-contained, as in strands-cli', () => {
    const { check } = layout('    $ref: ../agents/writer.yaml', { 'writer.yaml': 'agents:\n  w:\n    $ref: ./other.yaml\n', 'other.yaml': 'agents:\n  o:\n    prompt: "x"\n' });
    expect(errors(check().problems)).toEqual([expect.objectContaining({ message: expect.stringContaining('refers to another agent file itself at') })]);
  });
});
