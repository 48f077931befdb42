/** Every shortcut, defined once: behaviour, footer hints and help read from here. */
export interface KeyBinding {
  /** What `useInput` matches: a character, or `ctrl+<char>`. */
  keys: readonly string[];
  /** Footer label. */
  label: string;
  description: string;
}

export const runBindings = {
  'run.pause': { keys: ['ctrl+c'], label: 'Ctrl+C pause', description: 'pause: flush the checkpoint and stop; a second Ctrl+C quits at once' },
} as const satisfies Record<string, KeyBinding>;

/** True when an Ink `useInput` event matches one of `binding.keys`. */
export function matches(binding: KeyBinding, input: string, key: { ctrl: boolean }): boolean {
  return binding.keys.some((spec) => (spec.startsWith('ctrl+') ? key.ctrl && input === spec.slice(5) : !key.ctrl && input === spec));
}
