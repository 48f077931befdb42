import { useStdout } from 'ink';
import { useEffect, useState } from 'react';
import { terminalSize } from './terminal-size.js';

/** Columns and rows of the terminal, updated on resize. */
export function useTerminalSize(): { columns: number; rows: number } {
  const { stdout } = useStdout();
  const [size, setSize] = useState(() => terminalSize(stdout));
  useEffect(() => {
    const onResize = () => setSize(terminalSize(stdout));
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);
  return size;
}
