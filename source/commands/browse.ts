import { ExitCode } from '../errors/acode-error.js';
import { createBrowserStore, type BrowserStart, type BrowserState } from '../state/browser-store.js';
import { enterFullScreen } from '../ui/browser/full-screen.js';
import { openRepository, type CommandContext } from './command-context.js';
import { defaultHome } from '../store/acode-home.js';
import { remoteTarget } from '../store/remote/remote-url.js';
import { createSessionSource } from './browser-source.js';
import { importInk } from './import-ink.js';
import type * as BrowserScreen from '../ui/browser/browser-screen.js';

/** How often the browser checks for sessions that changed in other terminals. */
const pollMs = 1000;
/** The first look at the disk after Ink's first frame. */
const firstLookMs = 30;
/** Search targets prepared per turn of the event loop (~5 ms). */
const warmSlice = 400;

/** `acode` in a terminal: the full-screen session browser. Enter resumes the chosen session (f on a step forks it); when that run ends, the browser opens again on it. */
export async function browseCommand(ctx: CommandContext): Promise<ExitCode> {
  // React and Ink load while the first frame is read and painted without them.
  const ink = importInk(() => import('../ui/browser/browser-screen.js'));
  ink.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
  let start: BrowserStart | undefined;
  for (;;) {
    const { launch, filter, scope, query } = await browse(ctx, ink, start);
    if (!launch) return ExitCode.ok;
    const { resumeFromBrowser, forkFromBrowser } = await import('./resume-from-browser.js');
    // A session resumed from the team scope is in this home now: the browser opens on it among all local ones.
    const view = { filter, scope: scope === 'team' ? ('all' as const) : scope, query };
    if (launch.action === 'fork') start = { ...view, ...(await forkFromBrowser(ctx, launch.id, launch.step)) };
    else start = { ...view, id: launch.id, message: await resumeFromBrowser(ctx, launch.id) };
  }
}

/** How often the browser reads the home's sync state again (a stat per session), when a team store is configured. */
const syncEveryMs = 5000;

/**
 * The home's push to the team store, shown above the table while it is degraded (from local files
 * alone, as `acode status`): read after the first frame, then every few seconds. Nothing is read,
 * nor `pg` loaded, without a store.
 */
function watchSync(ctx: CommandContext, store: ReturnType<typeof createBrowserStore>): () => void {
  let target: ReturnType<typeof remoteTarget>;
  try {
    target = remoteTarget(defaultHome(ctx.env), ctx.cwd, ctx.env);
  } catch {
    return () => {};
  }
  if (!target) return () => {};
  const known = target;
  const read = async () => {
    try {
      const [{ homeSyncView }, { syncLine }] = await Promise.all([import('../store/remote/pending-events.js'), import('../state/sync-line.js')]);
      const repository = openRepository(ctx, { quiet: true });
      const line = syncLine(homeSyncView(repository.home, known, await repository.list({ write: false })));
      if (store.getState().sync !== (line ?? null)) store.setState({ sync: line ?? null });
    } catch {
      // A home that cannot be read: the listing says so itself.
    }
  };
  const first = setTimeout(() => void read(), firstLookMs * 10).unref();
  const timer = setInterval(() => void read(), syncEveryMs).unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}

/** The browser on screen until the person quits or picks a session to resume: its state then. */
async function browse(ctx: CommandContext, ink: Promise<typeof BrowserScreen>, start: BrowserStart | undefined): Promise<BrowserState> {
  const source = await createSessionSource(ctx);
  const store = createBrowserStore(source, ctx.cwd, start);
  const screen = enterFullScreen(store);
  let stopWatching: (() => void) | undefined;
  let stopped = false;
  let polling: Promise<void> | undefined;
  // A change seen while a look is under way may have come after that look read the sessions: one more look follows it.
  let lookAgain = false;
  const poll = (): Promise<void> => {
    if (polling) {
      lookAgain = true;
      return polling;
    }
    polling = (async () => {
      try {
        do {
          lookAgain = false;
          const rows = await source.poll();
          if (rows && !stopped) store.getState().replaceRows(rows);
        } while (lookAgain && !stopped);
      } catch (error) {
        store.setState({ message: `cannot read the sessions: ${(error as Error).message}` });
      } finally {
        polling = undefined;
      }
    })();
    return polling;
  };
  // After the first look, a look whenever the sessions may have changed (one at a time).
  const watch = async () => {
    try {
      const stop = await source.watch(() => void poll(), pollMs);
      if (stopped) stop();
      else stopWatching = stop;
    } catch (error) {
      store.setState({ message: `cannot watch the sessions: ${(error as Error).message}` });
    }
  };
  // Search targets are prepared a slice per turn of the event loop, so that keys are answered meanwhile.
  const warm = () => {
    if (!stopped && !store.getState().set.warm(warmSlice)) setImmediate(warm);
  };
  const stopSync = watchSync(ctx, store);
  try {
    const { runBrowser } = await ink;
    // Once Ink shows the frame and reads keys (a key typed at the first frame is answered first),
    // every row is read and checked against the disk, then search targets are prepared.
    await runBrowser(store, screen, () => setTimeout(() => void poll().then(() => (warm(), watch())), firstLookMs).unref());
  } finally {
    stopped = true;
    stopSync();
    stopWatching?.();
    screen.restore();
  }
  return store.getState();
}
