import { spawn } from 'node:child_process';
import { closeSync, existsSync, fstatSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionExecutor } from '../../source/engine/session-executor.js';
import { initialProgress } from '../../source/engine/session-progress.js';
import { createProvider } from '../../source/providers/create-provider.js';
import { loadSpecText } from '../../source/spec/load-spec.js';
import { indexFiles } from '../../source/store/index-log.js';
import { readIndexView } from '../../source/store/session-index.js';
import { SessionStore } from '../../source/store/session-store.js';
import { bundleForChild } from '../helpers/bundle-for-child.js';
import { chainSpec } from '../helpers/chain-spec.js';
import { indexBasePath } from '../helpers/index-files.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * session.json and the index's bases are written through acode's durable adapter. These tests drive
 * that path (the store, not the low-level writer) and tell a replacement (temp file, rename) from a
 * write in place: a reader that opened the old file keeps reading the old file whole.
 */

/** Everything an open descriptor reads now: the old file's bytes if it was replaced, whatever is there if it was rewritten. */
function readThrough(fd: number): Buffer {
  const buffer = Buffer.alloc(fstatSync(fd).size);
  let offset = 0;
  while (offset < buffer.length) {
    const n = readSync(fd, buffer, offset, buffer.length - offset, offset);
    if (n === 0) break;
    offset += n;
  }
  return buffer.subarray(0, offset);
}

function newSession(store: SessionStore, cwd: string, steps: number) {
  const text = chainSpec({ steps, provider: 'scripted' });
  const { spec } = loadSpecText(text, 'spec.yaml');
  const handle = store.create({
    workflow_name: spec.name, pattern_type: 'chain', spec_path: join(cwd, 'spec.yaml'), spec_hash: 'h', cwd,
    variables: {}, runtime: { provider: 'scripted' }, specText: text, spec, stepsTotal: steps,
  });
  return { handle, spec };
}

const padBase = 400_000;

describe('session.json and the index written through the store', () => {
  it('replaces each file whole: a reader holding the old file still reads the old content, and no temp file stays', async () => {
    const cwd = tempDir();
    const store = new SessionStore(join(cwd, 'home'));
    const { handle, spec } = newSession(store, cwd, 2);
    store.list(); // a base to hold: status changes append to the log, the next listing writes a new base
    const sessionPath = join(handle.dir, 'session.json');
    const indexPath = indexBasePath(store.home);
    const held = [sessionPath, indexPath].map((path) => ({ path, fd: openSync(path, 'r'), inode: statSync(path).ino, bytes: readFileSync(path) }));
    try {
      // A real run writes the checkpoint after each step and the index when the status changes.
      const journal = handle.openJournal();
      await new SessionExecutor({
        sessionId: handle.record.session_id, spec, variables: { topic: 't' }, provider: createProvider(spec, {}), journal, blobs: handle.blobs(), progress: initialProgress(2), cwd,
      }).run();
      journal.close();
      store.list();
      for (const file of held) expect(readThrough(file.fd).equals(file.bytes), `${file.path} was rewritten in place`).toBe(true);
      expect(statSync(sessionPath).ino, 'session.json kept its inode').not.toBe(held[0]!.inode);
      // The new base is another file; the one held was removed once replaced.
      expect(indexBasePath(store.home)).not.toBe(indexPath);
      expect(existsSync(indexPath)).toBe(false);
      expect(JSON.parse(readFileSync(sessionPath, 'utf8')).checkpoint.status).toBe('completed');
      expect(JSON.parse(readFileSync(indexBasePath(store.home), 'utf8')).sessions[handle.record.session_id].status).toBe('completed');
      expect(readdirSync(handle.dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
      expect(readdirSync(store.home).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    } finally {
      for (const file of held) closeSync(file.fd);
    }
  });

  /**
   * A child rewrites session.json (through the session's lowdb handle, as the journal does) and
   * changes its index row (through the index, as every status change does: a line appended to the
   * log, and a compaction into a new base each time the log passes 2 MB) in a tight loop, each
   * holding a large variable so that a write takes long enough to be caught in the middle.
   */
  const writerLoop = `
import { SessionStore } from './source/store/session-store.ts';
import { SessionIndex } from './source/store/session-index.ts';
import { summarize } from './source/store/session-record.ts';
const [home, id] = process.argv.slice(2);
const handle = new SessionStore(home).open(id);
const index = new SessionIndex(home, () => undefined, { compactAt: 2_000_000 });
for (let seq = 1; ; seq++) {
  handle.db.data.variables = { pad: 'x'.repeat(${padBase} + (seq % 7) * 1000), seq };
  handle.db.write();
  index.upsert(summarize(handle.db.data));
  if (seq === 1) process.stdout.write('writing\\n');
}
`;

  /** Parses one snapshot of a file the child is rewriting; throws (fails the test) on a torn one. */
  function expectWhole(path: string, variables: (json: unknown) => { pad: string; seq: number }) {
    const text = readFileSync(path, 'utf8');
    let json: unknown;
    expect(() => (json = JSON.parse(text)), `${path} was torn (${text.length} bytes)`).not.toThrow();
    const { pad, seq } = variables(json);
    expect(pad.length).toBe(padBase + (seq % 7) * 1000);
  }

  it('never shows a reader a torn file, nor leaves one when the writing process is killed with SIGKILL', async () => {
    const child = bundleForChild(writerLoop);
    const cwd = tempDir();
    const store = new SessionStore(join(cwd, 'home'));
    const { handle } = newSession(store, cwd, 1);
    const id = handle.record.session_id;
    const sessionPath = join(handle.dir, 'session.json');
    const sessionVariables = (json: unknown) => (json as { variables: { pad: string; seq: number } }).variables;
    /** The index as a reader merges it (base and logs): its row for the session is always one the child wrote whole. */
    const expectWholeRow = () => {
      const row = readIndexView(store.home)?.rows.find((r) => r.session_id === id);
      expect(row, 'the index could not be read').toBeDefined();
      const { pad, seq } = row!.variables as { pad: string; seq: number };
      if (seq !== undefined) expect(pad.length).toBe(padBase + (seq % 7) * 1000);
    };
    for (let round = 0; round < 3; round++) {
      const proc = spawn(process.execPath, [child, store.home, id], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve) => proc.stdout.once('data', () => resolve()));
      const closed = new Promise((resolve) => proc.once('close', resolve));
      try {
        // Read both while the child rewrites them, for a different span each round (the last one
        // until the child has compacted the index at least once), then kill it.
        const until = Date.now() + 10 + round * 20;
        const compacted = () => round < 2 || indexFiles(store.home).bases.length > 0;
        do {
          expectWhole(sessionPath, sessionVariables);
          expectWholeRow();
        } while (Date.now() < until || !compacted());
      } finally {
        proc.kill('SIGKILL');
        await closed;
      }
      expectWhole(sessionPath, sessionVariables);
      expectWholeRow();
    }
    expect(indexFiles(store.home).bases.length, 'the child compacted the index while it was read').toBeGreaterThan(0);
  });
});
