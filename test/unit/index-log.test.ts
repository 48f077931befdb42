import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { generateSessions } from '../../bench/generate-sessions.js';
import { readIndexHead } from '../../source/store/index-head.js';
import { appendIndexEntry, baseName, indexFiles, logName, readIndexLog } from '../../source/store/index-log.js';
import { readIndexView, SessionIndex } from '../../source/store/session-index.js';
import type { SessionSummary } from '../../source/store/session-record.js';
import { removeLeftoverTempFiles } from '../../source/store/temp-files.js';
import { bundleForChild } from '../helpers/bundle-for-child.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A completed session's row, as the index keeps it; `seq` goes in its tokens and its time. */
function row(id: string, seq: number): SessionSummary {
  return {
    session_id: id, workflow_name: 'w', status: 'completed', pattern_type: 'chain', created_at: '2026-01-01T00:00:00.000Z',
    updated_at: new Date(Date.parse('2026-01-01T00:00:00Z') + seq * 1000).toISOString(), steps_done: 1, steps_total: 1,
    tokens: { input: seq, output: 0 }, cwd: '/w', variables: {}, stop_reason: null, last_response: '', damaged: null,
  };
}

/** The child programs share the row above. */
const rowSource = `
const row = (id, seq) => ({
  session_id: id, workflow_name: 'w', status: 'completed', pattern_type: 'chain', created_at: '2026-01-01T00:00:00.000Z',
  updated_at: new Date(Date.parse('2026-01-01T00:00:00Z') + seq * 1000).toISOString(), steps_done: 1, steps_total: 1,
  tokens: { input: seq, output: 0 }, cwd: '/w', variables: {}, stop_reason: null, last_response: '', damaged: null,
});
`;

/** Appends one row for each of `count` sessions `<prefix><n>`, as status changes of that many sessions would. */
const appender = `
import { SessionIndex } from './source/store/session-index.ts';
${rowSource}
const [home, prefix, count] = process.argv.slice(2);
const index = new SessionIndex(home, () => undefined);
for (let i = 0; i < Number(count); i++) index.upsert(row(prefix + String(i).padStart(12, '0'), i));
`;

/** Lists (and so compacts) in a loop; with a second argument it first changes that session, printing each change made durable. */
const compactor = `
import { SessionIndex } from './source/store/session-index.ts';
${rowSource}
const [home, id] = process.argv.slice(2);
const index = new SessionIndex(home, () => undefined);
process.stdout.write('ready\\n');
for (let seq = 1; ; seq++) {
  if (id) {
    index.upsert(row(id, 1_000_000 + seq));
    process.stdout.write(seq + '\\n');
  }
  index.list();
}
`;

const idOf = (prefix: string, i: number) => prefix + String(i).padStart(12, '0');
const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));

describe('the index log', () => {
  it('keeps every line of two appending processes while a third compacts the index again and again', async () => {
    const home = tempDir();
    const perAppender = 150;
    const prefixes = ['aaaa', 'bbbb'];
    // A listing keeps only rows whose session folder exists.
    for (const prefix of prefixes) for (let i = 0; i < perAppender; i++) mkdirSync(join(home, 'sessions', idOf(prefix, i)), { recursive: true });
    const [append, compact] = [bundleForChild(appender), bundleForChild(compactor)];
    const folding = spawn(process.execPath, [compact, home], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve) => folding.stdout.once('data', resolve));
    const appenders = prefixes.map((prefix) => spawn(process.execPath, [append, home, prefix, String(perAppender)], { stdio: 'inherit' }));
    const codes = await Promise.all(appenders.map(exited));
    folding.kill('SIGKILL');
    await exited(folding);
    expect(codes).toEqual([0, 0]);

    const generations = Math.max(...indexFiles(home).bases);
    expect(generations, 'compactions ran while the appenders wrote').toBeGreaterThan(2);
    const rows = new Map(readIndexView(home)!.rows.map((r) => [r.session_id, r]));
    for (const prefix of prefixes) for (let i = 0; i < perAppender; i++) expect(rows.get(idOf(prefix, i))?.tokens.input, idOf(prefix, i)).toBe(i);
    expect(new SessionIndex(home, () => undefined).list()).toHaveLength(prefixes.length * perAppender);
  });

  it('appends a line again to the newest log when a compaction folded and removed the log it was written to', () => {
    const home = tempDir();
    for (const id of ['aaaa000000000001', 'aaaa000000000002']) mkdirSync(join(home, 'sessions', id), { recursive: true });
    const index = new SessionIndex(home, () => undefined);
    index.upsert(row('aaaa000000000001', 1));
    let compactions = 0;
    // The log is open; before the line is written, another process compacts: it reads the log
    // without the line, writes the next base and removes the log. The line lands in a removed file.
    appendIndexEntry(home, { op: 'put', id: 'aaaa000000000002', row: row('aaaa000000000002', 2), mtime: 0 }, () => {
      if (compactions++ === 0) new SessionIndex(home, () => undefined).list();
    });
    expect(compactions).toBe(2);
    expect(indexFiles(home).logs).toEqual([1]);
    expect(readIndexView(home)!.rows.map((r) => r.session_id)).toEqual(['aaaa000000000002', 'aaaa000000000001']);
  });

  it('skips a torn last line, and a line appended after it is read whole', () => {
    const home = tempDir();
    const index = new SessionIndex(home, () => undefined);
    index.upsert(row('aaaa000000000001', 1));
    const [generation] = indexFiles(home).logs;
    const log = join(home, logName(generation!));
    // What a writer killed in the middle of its line leaves: no newline at the end.
    appendFileSync(log, '\n{"op":"put","id":"aaaa000000000002","row":{"session_id":"aa');
    const torn = readIndexLog(log)!;
    expect(torn.entries.map((e) => e.id)).toEqual(['aaaa000000000001']);
    expect(torn.end, 'a line not ended yet is left for the next reader').toBeLessThan(readFileSync(log).length);

    index.upsert(row('aaaa000000000003', 3));
    expect(readIndexLog(log)!.entries.map((e) => e.id)).toEqual(['aaaa000000000001', 'aaaa000000000003']);
    expect(readIndexView(home)!.rows.map((r) => r.session_id)).toEqual(['aaaa000000000003', 'aaaa000000000001']);
  });

  it('takes a line appended again after a compaction as it comes, and an older row never over a newer one', () => {
    const home = tempDir();
    const index = new SessionIndex(home, () => undefined);
    index.upsert(row('aaaa000000000001', 5));
    index.upsert(row('aaaa000000000001', 5)); // a writer fenced by a compaction appends its line again
    index.upsert(row('aaaa000000000001', 3)); // a stale line (an older acode's base is newer)
    expect(readIndexView(home)!.rows).toEqual([row('aaaa000000000001', 5)]);
  });

  it('leaves a whole index, with every row, whenever a compaction is killed with SIGKILL', async () => {
    const root = tempDir();
    const home = join(root, 'home');
    const { ids } = generateSessions(home, 3000, (i) => join(root, `dir-${i % 5}`));
    const changed = ids[0]!;
    const child = bundleForChild(compactor);
    for (let round = 0; round < 6; round++) {
      const proc = spawn(process.execPath, [child, home, changed], { stdio: ['ignore', 'pipe', 'inherit'] });
      // Ended even when the test times out waiting on it: the compactor loops until killed (one was left running for hours).
      onTestFinished(() => {
        if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      });
      let durable = 0;
      let out = '';
      proc.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const lines = out.split('\n').filter((l) => /^\d+$/.test(l));
        if (lines.length) durable = Number(lines.at(-1));
      });
      await new Promise((resolve) => proc.stdout.once('data', resolve));
      await new Promise((resolve) => setTimeout(resolve, 40 + round * 60));
      proc.kill('SIGKILL');
      await exited(proc);
      const view = readIndexView(home);
      expect(view, `round ${round}: the index reads whole`).not.toBeNull();
      expect(view!.rows).toHaveLength(3000);
      const kept = view!.rows.find((r) => r.session_id === changed)!;
      // A change acknowledged as durable is never lost (the generated row had no such tokens).
      if (durable) expect(kept.tokens.input).toBeGreaterThanOrEqual(1_000_000 + durable);
    }
    // The next listing leaves one base and its log; a resume's sweep removes what killed writers left.
    new SessionIndex(home, () => undefined).list();
    const files = indexFiles(home);
    expect(files.bases).toHaveLength(1);
    expect(files.logs.every((g) => g === files.bases[0])).toBe(true);
    removeLeftoverTempFiles({ sessionId: ids[1]!, home, sessionDir: join(home, 'sessions', ids[1]!), workDirs: [] });
    expect(readdirSync(home).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('reads the index.json of an older acode, and the first listing migrates it to a base', () => {
    const root = tempDir();
    const home = join(root, 'home');
    const { ids } = generateSessions(home, 40, (i) => join(root, `dir-${i % 3}`));
    // index.json and index-head.json exactly as acode wrote them before the log (schemaVersion 1).
    const base = JSON.parse(readFileSync(join(home, baseName(0)), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(home, 'index.json'), JSON.stringify({ schemaVersion: 1, sessions: base.sessions, mtimes: base.mtimes, sessions_mtime: base.sessions_mtime }));
    rmSync(join(home, baseName(0)));
    const head = JSON.parse(readFileSync(join(home, 'index-head.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(home, 'index-head.json'), JSON.stringify({ ...head, schemaVersion: 1, index: { mtime: 1, size: 1, ino: 1 } }));

    expect(readIndexView(home)!.rows).toHaveLength(40);
    expect(readIndexHead(home)).toBeNull(); // the browser reads the whole index once
    const index = new SessionIndex(home, () => undefined);
    rmSync(join(home, 'sessions', ids[0]!), { recursive: true });
    index.remove(ids[0]!);
    expect(readIndexView(home)!.rows).toHaveLength(39); // index.json and the log, merged

    expect(index.list()).toHaveLength(39);
    expect(indexFiles(home)).toEqual({ bases: [1], logs: [1], legacy: false });
    expect(readIndexHead(home)!.total).toBe(39);
  });

  it('appends to the log of the newest generation, and a compaction moves appenders to the next', () => {
    const home = tempDir();
    mkdirSync(join(home, 'sessions', 'aaaa000000000001'), { recursive: true });
    const index = new SessionIndex(home, () => undefined);
    index.upsert(row('aaaa000000000001', 1));
    expect(indexFiles(home)).toEqual({ bases: [], logs: [0], legacy: false });
    index.list();
    expect(indexFiles(home)).toEqual({ bases: [1], logs: [1], legacy: false });
    index.upsert(row('aaaa000000000001', 2));
    expect(readIndexLog(join(home, logName(1)))!.entries).toHaveLength(1);
    // A compactor killed after its fence (the next log) and before its base: appends go to the fence.
    writeFileSync(join(home, logName(2)), '');
    index.upsert(row('aaaa000000000001', 3));
    expect(readIndexLog(join(home, logName(2)))!.entries).toHaveLength(1);
    expect(readIndexView(home)!.rows[0]!.tokens.input).toBe(3);
    // A base renamed away (removed by hand): the logs still hold what they hold.
    renameSync(join(home, baseName(1)), join(home, 'elsewhere.json'));
    expect(readIndexView(home)!.rows[0]!.tokens.input).toBe(3);
  });
});
