import { describe, expect, it } from 'vitest';
import { ranIn } from '../../source/state/browser-rows.js';

describe("the browser's 'this directory'", () => {
  // FIXED: source/state/browser-rows.ts: a session whose folder's name held a key of the run (stored [REDACTED]) was never in "this directory".
  it('matches a folder stored with a key taken out of its name, as that part holding anything', () => {
    expect(ranIn('/tmp/projects', '/tmp/projects')).toBe(true);
    expect(ranIn('/tmp/projects', '/tmp/projects2')).toBe(false);
    expect(ranIn('/tmp/hrx/[REDACTED]/work', '/tmp/hrx/projects2024/work')).toBe(true);
    expect(ranIn('/tmp/hrx/[REDACTED]/work', '/tmp/hrx/work')).toBe(false);
    expect(ranIn('/tmp/hrx/[REDACTED]/work', '/tmp/hrx/a/b/work2')).toBe(false);
    // Within one folder's name, never across folders: a home stored redacted is not every folder under it.
    expect(ranIn('/tmp/hrx/proj-[REDACTED]', '/tmp/hrx/proj-other/deep/nested')).toBe(false);
    expect(ranIn('/home/[REDACTED]', '/home/someone12/code')).toBe(false);
    expect(ranIn('/home/[REDACTED]', '/home/someone12')).toBe(true);
    // Characters a regular expression would read as its own are taken as written.
    expect(ranIn('/tmp/a.b+(c)/[REDACTED]', '/tmp/a.b+(c)/xxxxxxxx')).toBe(true);
    expect(ranIn('/tmp/a.b+(c)/[REDACTED]', '/tmp/aXb+(c)/xxxxxxxx')).toBe(false);
  });
});
