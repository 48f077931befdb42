import stringWidth from 'string-width';

/**
 * `text` in lines of at most `width` terminal columns, broken between words (a word wider than a
 * line is broken inside). Measured as Ink measures (string-width), so a wrapped line is never cut
 * at the edge. Past `maxLines`, the last line ends in "…".
 */
export function wrapText(text: string, columns: number, maxLines = Infinity): string[] {
  const width = Math.max(1, columns);
  const lines: string[] = [];
  let line = '';
  const push = () => {
    lines.push(line);
    line = '';
  };
  for (const word of text.replace(/\s+/g, ' ').trim().split(' ')) {
    const joined = line ? `${line} ${word}` : word;
    if (stringWidth(joined) <= width) {
      line = joined;
      continue;
    }
    if (line) push();
    for (const char of word) {
      if (stringWidth(line + char) > width) push();
      line += char;
    }
  }
  if (line || !lines.length) push();
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, Math.max(1, maxLines));
  let last = kept.at(-1)!;
  while (last && stringWidth(`${last}…`) > width) last = [...last].slice(0, -1).join('');
  kept[kept.length - 1] = `${last}…`;
  return kept;
}
