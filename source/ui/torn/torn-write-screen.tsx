import { renderScreen } from '../screen-render.js';
import { createChangesStore, type ChangeView } from '../../state/changes-store.js';
import { createTornWriteStore, type TornDecision } from '../../state/torn-write-store.js';
import { TornWritePrompt } from './torn-write-prompt.js';

export interface TornWriteQuestion {
  sessionId: string;
  /** The torn files, as the diff view names them. */
  torn: readonly ChangeView[];
  /** The diff of torn file `index`: its snapshot against what the write left. */
  loadDiff(index: number): string[];
}

/** Asks what to do with writes torn when the session stopped; the terminal is given back before it resolves. */
export function askAboutTornWrites(question: TornWriteQuestion): Promise<TornDecision> {
  return new Promise((resolve) => {
    const files = createChangesStore({ sessionId: question.sessionId, changes: question.torn, loadDiff: question.loadDiff, onDecide: () => undefined });
    const store = createTornWriteStore({
      files,
      onDecide: (decision) => {
        // Let Ink draw the last frame, then give the terminal back before the run view mounts.
        setImmediate(() => {
          instance.unmount();
          void instance.waitUntilExit().then(() => resolve(decision));
        });
      },
    });
    const instance = renderScreen(<TornWritePrompt store={store} files={files} />, { exitOnCtrlC: false, patchConsole: false, fullScreen: false });
  });
}
