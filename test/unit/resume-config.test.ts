import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultResumeConfig, loadResumeConfig } from '../../source/config/resume-config.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('resume config', () => {
  it('defaults when there is no config file', () => {
    expect(loadResumeConfig(tempDir(), tempDir())).toEqual({
      in_progress_strategy: 'rollback', validate_environment: true, changed_files_action: 'prompt',
      validation_timeout_seconds: 30, lock_timeout_seconds: 60, max_attempts: 5, auto_resume: true, on_unknown: 'retry',
    });
  });

  it("lets the project's .acode/config.yml override ACODE_HOME's config.yml", () => {
    const home = tempDir();
    const project = tempDir();
    writeFileSync(join(home, 'config.yml'), 'resume:\n  max_attempts: 3\n  lock_timeout_seconds: 10\n');
    mkdirSync(join(project, '.acode'));
    writeFileSync(join(project, '.acode', 'config.yml'), 'resume:\n  max_attempts: 7\n');
    expect(loadResumeConfig(home, project)).toEqual({ ...defaultResumeConfig, max_attempts: 7, lock_timeout_seconds: 10 });
  });

  it('names file, line and column of a bad value', () => {
    const home = tempDir();
    writeFileSync(join(home, 'config.yml'), 'resume:\n  changed_files_action: maybe\n');
    expect(() => loadResumeConfig(home, tempDir())).toThrowError(/config\.yml:2:25: error: resume\.changed_files_action: /);
  });

  it('names a YAML syntax error', () => {
    const home = tempDir();
    writeFileSync(join(home, 'config.yml'), 'resume: [\n');
    expect(() => loadResumeConfig(home, tempDir())).toThrowError(/config\.yml:\d+:\d+: error: YAML/);
  });

  it('names an alias to no anchor, and an alias bomb, as an error of the file (the yaml library throws them only as it expands them)', () => {
    const home = tempDir();
    writeFileSync(join(home, 'config.yml'), 'resume:\n  lock_timeout_seconds: *nope\n');
    expect(() => loadResumeConfig(home, tempDir())).toThrowError(/config\.yml:2:25: error: YAML: alias \*nope refers to no anchor/);
    const levels = ['a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]', ...'bcdefg'.split('').map((name, i) => `${name}: &${name} [${Array(9).fill(`*${'abcdef'[i]}`).join(', ')}]`)];
    writeFileSync(join(home, 'config.yml'), `${levels.join('\n')}\n`);
    expect(() => loadResumeConfig(home, tempDir())).toThrowError(/config\.yml:\d+:\d+: error: YAML: aliases expand into too many nodes/);
  });
});
