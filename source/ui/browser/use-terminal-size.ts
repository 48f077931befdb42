import { useStdout } from 'ink';
import { createContext, useContext, useEffect, useState } from 'react';
import { terminalSize } from './terminal-size.js';

export interface TerminalSize {
  columns: number;
  rows: number;
}

/**
 * The terminal's size, given by whoever mounted the view when it must be heard before Ink draws
 * (run-screen.tsx): Ink draws a frame for a resize from the tree as it is, and a hook's own state
 * updates only after — a view laid out for a wider terminal, wrapped at the narrower one, grew
 * taller than the terminal, and Ink cleared the screen and its scrollback.
 */
export const TerminalSizeContext = createContext<TerminalSize | null>(null);

/** Columns and rows of the terminal, updated on resize. */
export function useTerminalSize(): TerminalSize {
  const given = useContext(TerminalSizeContext);
  const { stdout } = useStdout();
  const [size, setSize] = useState(() => terminalSize(stdout));
  useEffect(() => {
    if (given) return;
    const onResize = () => setSize(terminalSize(stdout));
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout, given]);
  return given ?? size;
}
