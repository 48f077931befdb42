/**
 * The table's columns for a terminal width. When the row does not fit, whole columns drop — the
 * directory first, then tokens, then updated, then steps — instead of the row being cut at the
 * edge; the id and the status never drop. The workflow takes the room a dropped column leaves,
 * and gives some back (down to 10) only when even id, workflow and status do not fit.
 * Pure, so that the painted first frame and the Ink table lay out the same columns.
 */
export type ColumnKey = 'id' | 'workflow' | 'status' | 'steps' | 'tokens' | 'updated' | 'directory';

export interface Column {
  key: ColumnKey;
  title: string;
  /** Cells are cut or padded to this width… */
  width: number;
  /** …then followed by this many spaces. */
  gap: number;
}

/** The selection marker before the first column ("❯ "). */
export const markerWidth = 2;

/** The workflow column's width before any spare room is given to it. */
export const workflowWidth = 22;

const full: readonly Column[] = [
  { key: 'id', title: 'ID', width: 9, gap: 0 },
  { key: 'workflow', title: 'WORKFLOW', width: workflowWidth, gap: 1 },
  { key: 'status', title: 'STATUS', width: 12, gap: 0 },
  { key: 'steps', title: 'STEPS', width: 9, gap: 0 },
  { key: 'tokens', title: 'TOKENS', width: 7, gap: 1 },
  { key: 'updated', title: 'UPDATED', width: 9, gap: 1 },
  { key: 'directory', title: 'DIRECTORY', width: 10, gap: 0 },
];

/** Which column goes first when the terminal is too narrow for every one. */
export const dropOrder: readonly ColumnKey[] = ['directory', 'tokens', 'updated', 'steps'];

const minWorkflow = 10;
/** The directory's cell stops a column short of the edge. */
const edgeMargin = 1;

const used = (columns: readonly Column[]) => markerWidth + columns.reduce((sum, c) => sum + c.width + c.gap, 0);

/**
 * The columns shown at `width` terminal columns, with their widths. `titleWants`: columns the
 * workflow's longest cell on screen needs beyond its width (rows told apart by their variables):
 * it takes up to half the spare room, the directory the rest.
 */
export function columnsFor(width: number, titleWants = 0): Column[] {
  let columns = full.map((c) => ({ ...c }));
  for (const key of dropOrder) {
    if (used(columns) + edgeMargin <= width) break;
    columns = columns.filter((c) => c.key !== key);
  }
  const spare = width - edgeMargin - used(columns);
  const workflow = columns.find((c) => c.key === 'workflow')!;
  const stretch = columns.find((c) => c.key === 'directory') ?? workflow;
  if (stretch !== workflow && spare > 0 && titleWants > 0) {
    const given = Math.min(titleWants, Math.floor(spare / 2));
    workflow.width += given;
    stretch.width += spare - given;
    return columns;
  }
  stretch.width = Math.max(stretch.key === 'workflow' ? minWorkflow : stretch.width, stretch.width + spare);
  return columns;
}
