import xterm from '@xterm/headless';

/**
 * What a terminal shows for `output` written from its top-left corner, scrolled as a terminal
 * scrolls: one string per row, each cell as its character and its style (colour, dim, bold,
 * underline, inverse). A real terminal emulator (xterm.js, headless) decodes the escape codes, so
 * two outputs that differ only in how they are encoded give the same screen.
 */
export async function screenOf(output: string, columns: number, rows: number): Promise<{ text: string[]; styled: string[] }> {
  const terminal = new xterm.Terminal({ cols: columns, rows, allowProposedApi: true });
  await new Promise<void>((resolve) => terminal.write(output.replaceAll('\n', '\r\n'), resolve));
  const buffer = terminal.buffer.active;
  const cell = buffer.getNullCell();
  const screen = { text: [] as string[], styled: [] as string[] };
  // What the screen shows: output longer than the screen has scrolled its first rows away (baseY).
  for (let y = 0; y < rows; y++) {
    const line = buffer.getLine(buffer.baseY + y);
    let text = '';
    let styled = '';
    for (let x = 0; x < columns; x++) {
      line?.getCell(x, cell);
      const style = `${cell.getFgColorMode()}:${cell.getFgColor()}${cell.isDim() ? 'd' : ''}${cell.isBold() ? 'b' : ''}${cell.isUnderline() ? 'u' : ''}${cell.isInverse() ? 'i' : ''}`;
      text += cell.getChars() || ' ';
      styled += `${cell.getChars() || ' '}${style === '0:-1' ? '' : `[${style}]`}`;
    }
    screen.text.push(text.trimEnd());
    screen.styled.push(styled.trimEnd());
  }
  terminal.dispose();
  return screen;
}
