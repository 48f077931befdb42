import { renderScreen } from '../screen-render.js';
import type { ChangeView } from '../../state/changes-store.js';
import { createChangesStore } from '../../state/changes-store.js';
import { ChangesPrompt } from './changes-prompt.js';

export interface ChangesQuestion {
  sessionId: string;
  changes: readonly ChangeView[];
  loadDiff(index: number): string[];
}

/** Shows the changed-file prompt and resolves with the person's answer; the terminal is given back first. */
export function askAboutChanges(question: ChangesQuestion): Promise<'continue' | 'abort'> {
  return new Promise((resolve) => {
    const store = createChangesStore({
      ...question,
      onDecide: (decision) => {
        // Let Ink draw the last frame, then give the terminal back before the run view mounts.
        setImmediate(() => {
          instance.unmount();
          void instance.waitUntilExit().then(() => resolve(decision));
        });
      },
    });
    const instance = renderScreen(<ChangesPrompt store={store} />, { exitOnCtrlC: false, patchConsole: false, fullScreen: false });
  });
}
