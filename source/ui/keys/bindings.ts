import type { Key } from 'ink';

/** Every shortcut, defined once: behaviour, footer hints and help read from here. */
export interface KeyBinding {
  /** A character, `ctrl+<char>`, or a named key: up, down, left, right, pageup, pagedown, escape, return, tab, shift+tab, home, end. */
  keys: readonly string[];
  /** Footer label. */
  label: string;
  description: string;
}

/** Keys of every screen (the run view, the prompts, the browser), handled where each is rendered (ui/screen-render.tsx). */
export const screenBindings = {
  'screen.suspend': { keys: ['ctrl+z'], label: '', description: 'suspend to the shell, as in any terminal program (fg brings it back; a run stops meanwhile)' },
} as const satisfies Record<string, KeyBinding>;

export const runBindings = {
  'run.pause': { keys: ['ctrl+c'], label: 'Ctrl+C pause', description: 'pause: flush the checkpoint and stop; a second Ctrl+C quits at once' },
  'run.retryNow': { keys: ['r', 'R'], label: 'r retry now', description: 'while waiting to retry: retry now' },
  'run.abandon': { keys: ['a', 'A'], label: 'a abort', description: 'while waiting to retry: stop; the session stays paused and resumable' },
} as const satisfies Record<string, KeyBinding>;

export const approvalBindings = {
  'approval.approve': { keys: ['a', 'A', 'return'], label: 'a approve', description: 'approve: the step records the default response' },
  'approval.edit': { keys: ['e', 'E'], label: 'e edit a response', description: 'type the response the step records instead (Enter keeps it, Esc goes back)' },
  'approval.reject': { keys: ['r', 'R'], label: 'r reject', description: 'reject: the session is cancelled (asks first)' },
} as const satisfies Record<string, KeyBinding>;

/** Inside the approval panel's response editor. */
export const approvalEditBindings = {
  'approvalEdit.submit': { keys: ['return'], label: 'Enter submit', description: 'record the typed response' },
  'approvalEdit.cancel': { keys: ['escape'], label: 'Esc cancel', description: 'back to approve / edit / reject' },
} as const satisfies Record<string, KeyBinding>;

/** Rejecting cancels the session: it is asked once more, and only y confirms (Enter keeps waiting). */
export const rejectBindings = {
  'reject.yes': { keys: ['y', 'Y'], label: 'y reject', description: 'reject: the session is cancelled' },
  'reject.no': { keys: ['n', 'N', 'escape', 'return', 'q'], label: 'n keep waiting', description: 'back to approve / edit / reject' },
} as const satisfies Record<string, KeyBinding>;

export const changesBindings = {
  'changes.continue': { keys: ['c', 'C'], label: '', description: 'resume anyway: the files stay as they are now' },
  'changes.abort': { keys: ['a', 'A', 'ctrl+c'], label: '', description: 'stop; the session stays exactly as it was (exit 17)' },
  'changes.view': { keys: ['v', 'V', 'return'], label: 'Enter view', description: 'show what changed in the selected file' },
  'changes.up': { keys: ['up', 'k'], label: '↑↓ select', description: 'select the previous file' },
  'changes.down': { keys: ['down', 'j'], label: '', description: 'select the next file' },
} as const satisfies Record<string, KeyBinding>;

/** The torn-write question (ink-select-input draws the choices; the keys are read here, one at a time). */
export const tornBindings = {
  'torn.up': { keys: ['up', 'k'], label: '↑↓ choose', description: 'the choice above' },
  'torn.down': { keys: ['down', 'j'], label: '', description: 'the choice below' },
  'torn.select': { keys: ['return'], label: 'Enter select', description: 'take the highlighted choice (or press its number, 1–4)' },
  'torn.abort': { keys: ['ctrl+c'], label: 'Ctrl+C abort', description: 'stop; the session stays exactly as it was (exit 17)' },
} as const satisfies Record<string, KeyBinding>;

export const diffBindings = {
  'diff.back': { keys: ['escape', 'q'], label: 'Esc back', description: 'back to the prompt' },
  'diff.prev': { keys: ['left', 'h'], label: '←→ file', description: 'previous changed file' },
  'diff.next': { keys: ['right', 'l'], label: '', description: 'next changed file' },
  'diff.up': { keys: ['up', 'k'], label: '↑↓ PgUp PgDn scroll', description: 'scroll up a line' },
  'diff.down': { keys: ['down', 'j'], label: '', description: 'scroll down a line' },
  'diff.pageUp': { keys: ['pageup'], label: '', description: 'scroll up a page' },
  'diff.pageDown': { keys: ['pagedown', ' '], label: '', description: 'scroll down a page' },
} as const satisfies Record<string, KeyBinding>;

export const browserBindings = {
  'browser.up': { keys: ['up', 'k'], label: '↑↓ move', description: 'select the previous session' },
  'browser.down': { keys: ['down', 'j'], label: '', description: 'select the next session' },
  'browser.pageUp': { keys: ['pageup'], label: '', description: 'page up' },
  'browser.pageDown': { keys: ['pagedown'], label: '', description: 'page down' },
  'browser.first': { keys: ['g', 'home'], label: '', description: 'first session' },
  'browser.last': { keys: ['G', 'end'], label: '', description: 'last session' },
  'browser.open': { keys: ['return'], label: 'Enter resume', description: 'a resumable session: its resume plan (Enter again starts it); else its steps' },
  'browser.steps': { keys: ['right', 'l'], label: '→ steps', description: "the selected session's steps, resumable or not (f there forks from a step)" },
  'browser.resume': { keys: ['r'], label: 'r resume', description: 'resume the selected session: its plan, or why it cannot be resumed' },
  'browser.search': { keys: ['/'], label: '/ search', description: 'fuzzy search id, name, workflow, variables, directory and last response of every session' },
  'browser.filter': { keys: ['tab'], label: 'Tab filter', description: 'cycle filters: all, resumable, running, paused, completed, failed' },
  'browser.filterBack': { keys: ['shift+tab'], label: '', description: 'cycle filters backwards' },
  'browser.scope': { keys: ['s'], label: 's scope', description: 'cycle scopes: this directory, all local, the team store (ACODE_REMOTE_URL)' },
  'browser.delete': { keys: ['d'], label: 'd delete', description: 'delete the selected session (asks first)' },
  'browser.unlock': { keys: ['u'], label: '', description: "remove the selected session's lock (asks first)" },
  'browser.refresh': { keys: ['ctrl+r'], label: '', description: 'read the session list again now (it also follows changes by itself)' },
  'browser.help': { keys: ['?'], label: '? help', description: 'show or hide this help' },
  'browser.back': { keys: ['escape'], label: '', description: 'close what is open, clear the search (never quits)' },
  'browser.quit': { keys: ['q', 'ctrl+c'], label: 'q quit', description: 'quit' },
} as const satisfies Record<string, KeyBinding>;

/** The step view, opened by Enter on a session: the list of its steps, then one step's response. */
export const stepViewBindings = {
  'steps.up': { keys: ['up', 'k'], label: '↑↓ move', description: 'select the previous step (in a response: scroll up)' },
  'steps.down': { keys: ['down', 'j'], label: '', description: 'select the next step (in a response: scroll down)' },
  'steps.pageUp': { keys: ['pageup'], label: '', description: 'page up' },
  'steps.pageDown': { keys: ['pagedown', ' '], label: '', description: 'page down' },
  'steps.first': { keys: ['g', 'home'], label: '', description: 'the first step (in a response: its top)' },
  'steps.last': { keys: ['G', 'end'], label: '', description: 'the last step (in a response: its end)' },
  'steps.open': { keys: ['return'], label: 'Enter response', description: "show the selected step's whole response and tool calls" },
  'steps.resume': { keys: ['r'], label: 'r resume', description: 'resume the session (when it is resumable): plan, changed files, live run' },
  'steps.fork': { keys: ['f'], label: 'f fork here', description: 'fork the session from the selected step, as acode fork <id> --from-step <step> does: the steps before it are reused, it and the rest run' },
  'steps.back': { keys: ['escape', 'q', 'left'], label: 'Esc back', description: 'back: from a response to the steps, from the steps to the sessions' },
} as const satisfies Record<string, KeyBinding>;

export const confirmBindings = {
  'confirm.yes': { keys: ['y', 'Y', 'return'], label: 'y yes', description: 'confirm' },
  'confirm.no': { keys: ['n', 'N', 'escape', 'q'], label: 'n no', description: 'cancel' },
} as const satisfies Record<string, KeyBinding>;

const named: Record<string, (key: Key) => boolean> = {
  up: (k) => k.upArrow,
  down: (k) => k.downArrow,
  left: (k) => k.leftArrow,
  right: (k) => k.rightArrow,
  pageup: (k) => k.pageUp,
  pagedown: (k) => k.pageDown,
  escape: (k) => k.escape,
  return: (k) => k.return,
  tab: (k) => k.tab && !k.shift,
  'shift+tab': (k) => k.tab && k.shift,
  home: (k) => k.home,
  end: (k) => k.end,
};

/** True when an Ink `useInput` event matches one of `binding.keys`. */
export function matches(binding: KeyBinding, input: string, key: Pick<Key, 'ctrl'> & Partial<Key>): boolean {
  return binding.keys.some((spec) => {
    if (spec.startsWith('ctrl+')) return key.ctrl && input === spec.slice(5);
    const test = named[spec];
    if (test) return test(key as Key);
    return !key.ctrl && input === spec;
  });
}

/** Footer hints: the labelled bindings, in order. */
export function hints(bindings: Record<string, KeyBinding>): string {
  return Object.values(bindings).map((b) => b.label).filter(Boolean).join(' · ');
}
