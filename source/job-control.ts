/**
 * Ctrl+Z for a program that reads its keys in raw mode (which turns Ctrl+Z into a key): gives the
 * terminal its line discipline back and stops the whole process group, as the terminal itself
 * would — under `npx` or `sh -c` the job is more than this process, and a shell waits for all of it
 * to stop before it takes the terminal back. Returns once the job is continued (`fg`, `bg`), raw
 * mode on again. An orphaned process group (no shell to continue it) is not stopped: the kernel
 * drops the signal, and this returns at once.
 */
export function suspendJob(stdin: NodeJS.ReadStream): void {
  if (stdin.isTTY) stdin.setRawMode(false);
  process.kill(0, 'SIGTSTP');
  if (stdin.isTTY) stdin.setRawMode(true);
}
