import { describe, expect, it } from 'vitest';
import { prepareRows, visibleRows, type BrowserRow } from '../../source/state/browser-rows.js';

/** A listed session: only what the search reads differs between rows. */
function row(session_id: string, fields: { workflow?: string; topic?: string; cwd?: string; response?: string; name?: string }): BrowserRow {
  return {
    session_id,
    ...(fields.name === undefined ? {} : { name: fields.name }),
    workflow_name: fields.workflow ?? 'research-chain',
    status: 'completed',
    pattern_type: 'chain',
    created_at: '2026-11-01T00:00:00.000Z',
    updated_at: '2026-11-01T00:00:00.000Z',
    steps_done: 3,
    steps_total: 3,
    tokens: { input: 1, output: 1 },
    cwd: fields.cwd ?? '/home/ana/projects/notes',
    variables: fields.topic === undefined ? {} : { topic: fields.topic },
    stop_reason: null,
    last_response: fields.response ?? 'Durable checkpoints let a long run survive crashes.',
    damaged: null,
    interrupted: false,
    resumable: false,
  };
}

const rows = [
  row('1f00aa0000000001', { topic: 'a postgres review', workflow: 'review-chain' }),
  row('2f00aa0000000002', { topic: 'durable agents', workflow: 'code-review' }),
  row('3f00aa0000000003', { topic: 'reviewing budgets', response: 'a preview of the budgets' }),
  row('4f00aa0000000004', { topic: 'rust', workflow: 'rev-iew-ing' }),
  row('5f00aa0000000005', { workflow: 'review', name: 'weekly' }),
];
const search = (query: string) => visibleRows(prepareRows(rows), { scope: 'all', cwd: '/', filter: 'all', query }).map((shown) => shown.session_id.slice(0, 1));

describe('the browser search', () => {
  it('ranks a field the query equals first, then a word it starts, then text it is inside, then fuzzy matches', () => {
    expect(search('review')).toEqual(['5', '1', '2', '3', '4']);
  });

  it('takes an id by its start, and a name as written', () => {
    expect(search('3f00')).toEqual(['3']);
    expect(search('weekly')).toEqual(['5']);
  });

  it('does not match every session on two letters: a short query matches only where it is written', () => {
    // 'run' (in four responses) and 'rust' start words; row 3 has an r and a later u, which fuzzy matching took.
    expect(search('ru')).toEqual(['1', '2', '4', '5']);
    expect(search('zq')).toEqual([]);
  });
});
