import { render, useInput, useStdin, type Instance, type RenderOptions } from 'ink';
import type { ReactNode } from 'react';
import { enterAlternateScreen, leaveAlternateScreen } from './browser/full-screen.js';
import { suspendJob } from '../job-control.js';
import { matches, screenBindings } from './keys/bindings.js';

const showCursor = '\u001B[?25h';
const hideCursor = '\u001B[?25l';

/** How a screen holds the terminal: inline (the run view, the prompts) or on the alternate screen (the browser). */
export interface ScreenKind {
  fullScreen: boolean;
}

/**
 * Ctrl+Z: gives the terminal back and stops the job (suspendJob) — the shell's job control then
 * owns it (`fg`, `bg`). Everything in the group stops: a run's model call, its tools, `npx` above it; the run
 * holds its lock meanwhile and, stopped past the lock's timeout, finds on `fg` that another process
 * may have taken the session over (the epoch fence: it writes nothing more). On `fg` the terminal
 * is taken again and the live frame is drawn anew below what the shell wrote (what Ink printed for
 * good, a run's finished steps, stays where it was, above).
 */
export function suspendScreen(instance: Instance, kind: ScreenKind, stdin: NodeJS.ReadStream, stdout: NodeJS.WriteStream): void {
  stdout.write(kind.fullScreen ? leaveAlternateScreen : showCursor);
  suspendJob(stdin);
  if (kind.fullScreen) stdout.write(enterAlternateScreen);
  instance.redraw();
  // The redraw starts Ink's inline output afresh, which shows the cursor until an inline frame
  // hides it again; a full-screen frame is drawn past that output, so nothing would hide it.
  if (kind.fullScreen) stdout.write(hideCursor);
  // A terminal resized while the job was stopped told the shell's job, its foreground then
  // (SIGWINCH goes to that): the signal is sent again, on which Node reads the size and says
  // 'resize' if it changed — after the redraw, since Ink's answer to a narrower terminal erases
  // its last frame, which before the redraw was what the shell wrote.
  process.kill(process.pid, 'SIGWINCH');
}

function SuspendKey({ onSuspend }: { onSuspend: () => void }) {
  const { isRawModeSupported } = useStdin();
  useInput(
    (input, key) => {
      if (matches(screenBindings['screen.suspend'], input, key)) onSuspend();
    },
    { isActive: isRawModeSupported === true },
  );
  return null;
}

/**
 * Ink's render, with Ctrl+Z suspending the screen (suspendScreen) whatever the screen's own keys
 * are. `rerender` keeps the key.
 */
export function renderScreen(node: ReactNode, options: RenderOptions & ScreenKind): Instance {
  const { fullScreen, ...inkOptions } = options;
  const stdin = inkOptions.stdin ?? process.stdin;
  const stdout = inkOptions.stdout ?? process.stdout;
  // Called on a key, so after `instance` below is set.
  const onSuspend = () => suspendScreen(instance, { fullScreen }, stdin, stdout);
  const tree = (child: ReactNode) => (
    <>
      <SuspendKey onSuspend={onSuspend} />
      {child}
    </>
  );
  const rendered = render(tree(node), inkOptions);
  const instance: Instance = { ...rendered, rerender: (next: ReactNode) => rendered.rerender(tree(next)) };
  return instance;
}
