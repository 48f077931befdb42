import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { createSessionSource } from '../../source/commands/browser-source.js';
import { tableLines } from '../../source/ui/browser/browser-lines.js';
import { generatedStore } from '../helpers/browser-fixture.js';

const names = [
  'A 🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀',
  'B 名名名名名名名名名名名名名名名名名名',
  `C ${'e\u0301'.repeat(24)}`,
  'F tab\there\ttab\ttab\ttab\ttab',
  'G 👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦',
  'I plain ascii name that is rather long indeed and goes on',
  'J 🇯🇵🇯🇵🇯🇵🇯🇵🇯🇵🇯🇵🇯🇵🇯🇵🇯🇵🇯🇵🇯🇵',
  '\u001b]2;TITLE\u0007\u001b[?25linj',
  'short 名',
  'safe\u202Etxt.exe',
];

describe("the browser's table cells", () => {
  it('are cut and padded by the columns the terminal draws, never splitting a character, without controls', async () => {
    const { ctx } = generatedStore(1);
    const base = (await createSessionSource(ctx)).initial.rows[0]!;
    const rows = names.map((workflow_name, i) => ({ ...base, session_id: String(i).padStart(16, '0'), workflow_name, status: 'completed' as const, interrupted: false }));
    const lines = tableLines({ visible: rows, top: 0, pageSize: names.length, selected: 0, unloaded: 0, query: '', taken: 0 }, 120, Date.now())
      .map((line) => line.map((segment) => segment.text).join(''))
      .filter((line) => /^. \d{8} /.test(line));
    expect(lines).toHaveLength(names.length);
    const statusColumns = lines.map((line) => stringWidth(line.slice(0, line.indexOf('completed'))));
    // Every row's status starts in one column, and no row is wider than the terminal.
    expect(new Set(statusColumns).size, lines.join('\n')).toBe(1);
    for (const line of lines) {
      expect(stringWidth(line)).toBeLessThanOrEqual(120);
      expect(line).not.toContain('\uFFFD');
      expect(line).not.toMatch(/[\u0000-\u001f\u202a-\u202e\u2066-\u2069]/);
    }
    expect(lines[7]).toContain('inj');
    expect(lines[8]).toContain('short 名');
  });

  it('tells rows of one workflow apart by their variables where these differ, else by the start of their first input', async () => {
    const { ctx } = generatedStore(1);
    const base = { ...(await createSessionSource(ctx)).initial.rows[0]!, workflow_name: 'notes', status: 'completed' as const, interrupted: false };
    const cells = (rows: (typeof base)[]) =>
      tableLines({ visible: rows, top: 0, pageSize: rows.length, selected: 0, unloaded: 0, query: '', taken: 0 }, 160, Date.now())
        .map((line) => line.map((segment) => segment.text).join(''))
        .filter((line) => /^. \d{8} /.test(line))
        .map((line) => line.slice(11, line.indexOf('completed')).trim());
    const board = { ...base, session_id: '1'.padStart(16, '0'), variables: {}, first_input: 'Summarise the quarterly report for the b…' };
    const launch = { ...base, session_id: '2'.padStart(16, '0'), variables: {}, first_input: 'Draft the launch email' };
    // No variables: the first input, quoted.
    expect(cells([board, launch])).toEqual(['notes · “Summarise the quarterly report for the b…”', 'notes · “Draft the launch email”']);
    // The same variables tell nothing: the first input still.
    expect(cells([{ ...board, variables: { lang: 'en' } }, { ...launch, variables: { lang: 'en' } }])).toEqual(['notes · “Summarise the quarterly report for the b…”', 'notes · “Draft the launch email”']);
    // Variables that differ: the variables, as before.
    expect(cells([{ ...board, variables: { topic: 'a' } }, { ...launch, variables: { topic: 'b' } }])).toEqual(['notes · topic=a', 'notes · topic=b']);
    // Older rows without a first input, and a lone title, stay as they were.
    expect(cells([{ ...board, first_input: undefined }, { ...launch, first_input: undefined }])).toEqual(['notes', 'notes']);
    expect(cells([board])).toEqual(['notes']);
  });
});
