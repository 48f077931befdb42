import { ExitCode } from '../errors/acode-error.js';
import { createBrowserStore } from '../state/browser-store.js';
import type { CommandContext } from './command-context.js';
import { createSessionSource } from './browser-source.js';

/** How often the browser looks for sessions that changed in other terminals. */
const pollMs = 1000;

/** `acode` in a terminal: the full-screen session browser; Enter hands the chosen session to resume. */
export async function browseCommand(ctx: CommandContext): Promise<ExitCode> {
  const { runBrowser } = await import('../ui/browser/browser-screen.js');
  const source = await createSessionSource(ctx);
  const store = createBrowserStore(source, ctx.cwd);
  // Once the first frame is out (well after it: rendering 10,000 rows' first frame takes ~250 ms),
  // prepare the search targets so that the first '/' is instant.
  setTimeout(() => store.getState().set.targets(), 400).unref();
  const timer = setInterval(() => {
    const rows = source.poll();
    if (rows) store.getState().replaceRows(rows);
  }, pollMs);
  try {
    await runBrowser(store);
  } finally {
    clearInterval(timer);
  }
  const resumeId = store.getState().resumeId;
  if (!resumeId) return ExitCode.ok;
  const { resumeCommand } = await import('./resume.js');
  return resumeCommand(ctx, resumeId, { json: false, dryRun: false });
}
