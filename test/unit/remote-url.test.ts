import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { redact } from '../../source/secrets/redactor.js';
import { remoteTarget, requireRemote } from '../../source/store/remote/remote-url.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('the team store URL', () => {
  it('is none without ACODE_REMOTE_URL: nothing about the remote is done', () => {
    const home = tempDir('acode-remote-');
    expect(remoteTarget(home, home, {})).toBeUndefined();
    expect(() => requireRemote(home, home, {})).toThrow(/set ACODE_REMOTE_URL/);
  });

  it('is shown without its credentials, and its password is redacted wherever it would be printed', () => {
    const home = tempDir('acode-remote-');
    const target = remoteTarget(home, home, { ACODE_REMOTE_URL: 'postgres://team:S3cr3t%2Fpass-42xyz@db.example:5432/acode?sslmode=require' })!;
    expect(target.shown).toBe('postgres://db.example:5432/acode');
    expect(redact('auth failed for S3cr3t/pass-42xyz')).not.toContain('S3cr3t/pass');
    expect(target.scrub('echo S3cr3t%2Fpass-42xyz')).toBe('echo [REDACTED]');
  });

  it('takes the short password out of what it reports too', () => {
    const home = tempDir('acode-remote-');
    const target = remoteTarget(home, home, { ACODE_REMOTE_URL: 'postgres://u:hunter2@db:5432/acode' })!;
    expect(target.scrub('server said hunter2')).toBe('server said [REDACTED]');
  });

  it('is read from the variable remote.url_env names', () => {
    const home = tempDir('acode-remote-');
    writeFileSync(join(home, 'config.yml'), 'remote:\n  url_env: TEAM_DB\n');
    expect(remoteTarget(home, home, { ACODE_REMOTE_URL: 'postgres://a:b@x/y' })).toBeUndefined();
    expect(remoteTarget(home, home, { TEAM_DB: 'postgres://db.example/acode' })?.variable).toBe('TEAM_DB');
  });

  it('refuses what is not a postgres:// URL without quoting it', () => {
    const home = tempDir('acode-remote-');
    expect(() => remoteTarget(home, home, { ACODE_REMOTE_URL: 'Sup3rSecretPassw0rd' })).toThrow(/^ACODE_REMOTE_URL is not a URL; set it to postgres:/);
    expect(() => remoteTarget(home, home, { ACODE_REMOTE_URL: 'https://x:y@host/db' })).toThrow(/must be a postgres:\/\/ URL/);
  });
});
