import { ExitCode } from '../errors/acode-error.js';
import { createBrowserStore } from '../state/browser-store.js';
import type { CommandContext } from './command-context.js';
import { createSessionSource } from './browser-source.js';
import { importInk } from './import-ink.js';

/** How often the browser looks for sessions that changed in other terminals. */
const pollMs = 1000;
/** The first look at the disk after the first frame. */
const firstLookMs = 30;

/** `acode` in a terminal: the full-screen session browser; Enter hands the chosen session to resume. */
export async function browseCommand(ctx: CommandContext): Promise<ExitCode> {
  const { runBrowser } = await importInk(() => import('../ui/browser/browser-screen.js'));
  const source = await createSessionSource(ctx);
  const store = createBrowserStore(source, ctx.cwd);
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const poll = async () => {
    try {
      const rows = await source.poll();
      if (rows && !stopped) store.getState().replaceRows(rows);
    } catch (error) {
      store.setState({ message: `cannot read the sessions: ${(error as Error).message}` });
    }
    if (!stopped) timer = setTimeout(() => void poll(), pollMs).unref();
  };
  // runBrowser draws the first frame (from the index alone) synchronously. Once the terminal has
  // had a moment to show it, the rows are checked against the disk and the search targets are
  // prepared, so that the first '/' is instant.
  setTimeout(() => void poll().then(() => store.getState().set.targets()), firstLookMs).unref();
  try {
    await runBrowser(store);
  } finally {
    stopped = true;
    clearTimeout(timer);
  }
  const resumeId = store.getState().resumeId;
  if (!resumeId) return ExitCode.ok;
  const { resumeCommand } = await import('./resume.js');
  return resumeCommand(ctx, resumeId, { json: false, dryRun: false });
}
