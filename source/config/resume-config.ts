import { readYamlFile } from '../spec/yaml-file.js';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { formatProblem, type SpecProblem } from '../spec/spec-problem.js';
import { parsePositioned, yamlValue } from '../spec/yaml-positions.js';
import type { AutoResumePolicy } from '../engine/resume-strategy.js';
import { z } from '../validation/z.js';
import { configFiles, defaultLockTimeoutSeconds } from './resume-defaults.js';
import { defaultRetentionConfig, retentionSchema, type RetentionConfig } from './retention-settings.js';
import { defaultRemoteConfig, remoteSchema, type RemoteConfig } from './remote-settings.js';

const resumeSchema = z.strictObject({
  in_progress_strategy: z.enum(['rollback', 'retry', 'prompt']),
  validate_environment: z.boolean(),
  changed_files_action: z.enum(['prompt', 'continue', 'abort']),
  validation_timeout_seconds: z.number().positive(),
  lock_timeout_seconds: z.number().positive(),
  max_attempts: z.number().int().min(1).max(100),
  auto_resume: z.boolean(),
  on_unknown: z.enum(['retry', 'pause', 'fail']),
});

// No defaults inside the schema: a file that sets one key must not reset the others.
const configSchema = z.strictObject({ resume: resumeSchema.partial().optional(), retention: retentionSchema.partial().optional(), remote: remoteSchema.partial().optional() });
type ConfigFile = z.infer<typeof configSchema>;

export type ResumeConfig = z.infer<typeof resumeSchema>;

export const defaultResumeConfig: ResumeConfig = {
  in_progress_strategy: 'rollback',
  validate_environment: true,
  changed_files_action: 'prompt',
  validation_timeout_seconds: 30,
  lock_timeout_seconds: defaultLockTimeoutSeconds,
  max_attempts: 5,
  auto_resume: true,
  on_unknown: 'retry',
};

/** The engine's auto-resume policy from the config and `--no-auto-resume`. */
export function autoResumePolicy(config: ResumeConfig, flag?: boolean): AutoResumePolicy {
  return { enabled: flag ?? config.auto_resume, maxAttempts: config.max_attempts, onUnknown: config.on_unknown };
}

/** One config file's settings; a bad file is an AcodeError naming file:line:column. */
function readConfigFile(file: string): ConfigFile {
  const read = readYamlFile(file);
  if ('reason' in read) {
    if (read.code === 'ENOENT') return {};
    throw new AcodeError(`cannot read config ${file}: ${read.reason}`, ExitCode.usage);
  }
  const yaml = parsePositioned(read.text);
  const parsed = yamlValue(yaml, file);
  const problems: SpecProblem[] = parsed.problems ?? [];
  if (!parsed.problems) {
    const result = configSchema.safeParse(parsed.value ?? {});
    if (result.success) return result.data;
    for (const issue of result.error.issues) {
      const path = issue.path as (string | number)[];
      const where = issue.code === 'unrecognized_keys' ? yaml.locateKey(path, issue.keys[0] ?? '') : yaml.locate(path);
      const name = [...path, ...(issue.code === 'unrecognized_keys' ? issue.keys : [])].join('.');
      problems.push({ severity: 'error', file, ...where, message: `${name}: ${issue.code === 'unrecognized_keys' ? 'unknown setting' : issue.message}` });
    }
  }
  throw new AcodeError(
    `${problems.map(formatProblem).join('\n')}\nFix the config (settings: ${[...Object.keys(resumeSchema.shape).map((k) => `resume.${k}`), ...Object.keys(retentionSchema.shape).map((k) => `retention.${k}`), ...Object.keys(remoteSchema.shape).map((k) => `remote.${k}`)].join(', ')}); nothing was changed.`,
    ExitCode.usage,
  );
}

/** `$ACODE_HOME/config.yml`, overridden by the project's `.acode/config.yml`. */
export function loadResumeConfig(home: string, projectDir: string): ResumeConfig {
  const [homeFile, projectFile] = configFiles(home, projectDir) as [string, string];
  return { ...defaultResumeConfig, ...readConfigFile(homeFile).resume, ...readConfigFile(projectFile).resume };
}

/** `retention.*`, the defaults of `acode sessions cleanup`, from the same two files. */
export function loadRetentionConfig(home: string, projectDir: string): RetentionConfig {
  const [homeFile, projectFile] = configFiles(home, projectDir) as [string, string];
  return { ...defaultRetentionConfig, ...readConfigFile(homeFile).retention, ...readConfigFile(projectFile).retention };
}

/** `remote.*`, where the team store's URL is found, from the same two files. */
export function loadRemoteConfig(home: string, projectDir: string): RemoteConfig {
  const [homeFile, projectFile] = configFiles(home, projectDir) as [string, string];
  return { ...defaultRemoteConfig, ...readConfigFile(homeFile).remote, ...readConfigFile(projectFile).remote };
}
