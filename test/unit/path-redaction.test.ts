import { describe, expect, it } from 'vitest';
import { redactEvent, redactKeepingOwnPaths, redactSessionRecord } from '../../source/secrets/event-redaction.js';
import { redactedMark, secrets } from '../../source/secrets/redactor.js';

const key = 'sk-canary-P4thQ7vX2mLp9RzT4wKd8NfB';
secrets.register(key);

/** A folder named like a credential nobody registered: scikit-learn work, `sk-` and a digit. */
const folder = '/home/ana/code/sk-learn-experiments-2024';

describe('paths in what a session stores', () => {
  // FIXED: source/secrets/event-redaction.ts: a folder named like a credential became [REDACTED] in session.json, the index and
  // every file event — resume then refused ("ran in …/[REDACTED], which no longer exists") and saw the files as deleted.
  it('a path named like a credential is kept in file events; a registered key in one still goes', () => {
    const intended = { type: 'file_write_intended', step: '1', call_id: 'c', path: `${folder}/notes.md`, message: `wrote ${folder}/notes.md` };
    const stored = redactEvent(intended);
    expect(stored.path).toBe(`${folder}/notes.md`);
    // Free text about it is a message: both kinds go there, as before (no session has said the folder is its own).
    expect(stored.message).toBe(`wrote /home/ana/code/${redactedMark}/notes.md`);
    const accepted = redactEvent({ type: 'environment_accepted', files: [{ path: `${folder}/a.md`, hash: null, blob: null }] });
    expect(accepted.files[0]!.path).toBe(`${folder}/a.md`);
    // A model may have been made to name a file after the key: the registered key never reaches the log.
    expect(redactEvent({ type: 'file_read', path: `/tmp/${key}.txt` }).path).toBe(`/tmp/${redactedMark}.txt`);
  });

  it("a session's own folders are stored as they are; its variables and names still lose both kinds", () => {
    const record = {
      cwd: folder,
      spec_path: `${folder}/spec.yaml`,
      artifacts_dir: `${folder}/out`,
      artifacts_inherited: [`${folder}/out/report.md`],
      variables: { token: 'sk-abcdefghijklmnop1234', mine: key },
      name: 'run with sk-abcdefghijklmnop1234',
      checkpoint: { last: `${folder}/x` },
    };
    const stored = redactSessionRecord(record);
    expect(stored.cwd).toBe(folder);
    expect(stored.spec_path).toBe(`${folder}/spec.yaml`);
    expect(stored.artifacts_dir).toBe(`${folder}/out`);
    expect(stored.artifacts_inherited).toEqual([`${folder}/out/report.md`]);
    expect(stored.variables).toEqual({ token: redactedMark, mine: redactedMark });
    expect(stored.name).toBe(`run with ${redactedMark}`);
    expect(stored.checkpoint).toEqual({ last: `${folder}/x` });
    const row = redactKeepingOwnPaths({ cwd: folder, last_response: `the key is ${key}` });
    expect(row).toEqual({ cwd: folder, last_response: `the key is ${redactedMark}` });
  });

  // FIXED: source/secrets/event-redaction.ts: own paths were stored whole, a registered key in a folder's name with them.
  it("a session's own folders still lose a registered key in their names", () => {
    const stored = redactSessionRecord({ cwd: `/tmp/${key}`, spec_path: `/tmp/${key}/spec.yaml`, artifacts_dir: `/tmp/${key}/out`, artifacts_inherited: [`/tmp/${key}/out/a.md`], checkpoint: {} });
    expect(JSON.stringify(stored)).not.toContain(key.slice(10, 18));
    expect(stored).toMatchObject({ cwd: `/tmp/${redactedMark}`, spec_path: `/tmp/${redactedMark}/spec.yaml`, artifacts_dir: `/tmp/${redactedMark}/out`, artifacts_inherited: [`/tmp/${redactedMark}/out/a.md`] });
    expect(redactKeepingOwnPaths({ cwd: `/tmp/${key}` })).toEqual({ cwd: `/tmp/${redactedMark}` });
  });

  // FIXED: source/secrets/redactor.ts (allow): what acode printed about such a session named its folder [REDACTED].
  it("once a session's record is read or written, its folders keep their names in printed text too; other shapes and keys still go", () => {
    const other = '/srv/sk-prod-backups-2025-archive';
    const unowned = redactEvent({ type: 'step_failed', message: `cannot write ${other}/x` });
    expect(unowned.message).toBe(`cannot write /srv/${redactedMark}/x`);
    redactSessionRecord({ cwd: other, checkpoint: {} });
    const line = `wrote ${other}/report.md with api_key=sk-abcdefghijklmnop1234 and ${key}`;
    expect(secrets.redact(line)).toBe(`wrote ${other}/report.md with api_key=${redactedMark} and ${redactedMark}`);
    // A key in the folder's name is still a key.
    redactSessionRecord({ cwd: `/tmp/${key}`, checkpoint: {} });
    expect(secrets.redact(`in /tmp/${key}`)).toBe(`in /tmp/${redactedMark}`);
  });
});
