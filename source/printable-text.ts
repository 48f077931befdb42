/** ESC sequences: CSI, OSC (ended by BEL or ST, or by nothing), and two-character escapes. */
const escapeSequence = String.raw`\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-_])`;

/**
 * ESC sequences and every other C0/C1 control character. A server's text printed as sent could
 * retitle the window, clear the screen or move the cursor.
 */
const controls = new RegExp(String.raw`${escapeSequence}|[\u0000-\u001f\u007f-\u009f]`, 'g');

/** Text from elsewhere (a server's model ids, its error messages) made safe to print on one line. */
export function printable(text: string): string {
  return text.replace(controls, '');
}

/**
 * The same, but line breaks and tabs stay; and the bidirectional overrides and isolates
 * (U+202A–U+202E, U+2066–U+2069), which make a line read otherwise than it is, go too.
 */
const controlsButLines = new RegExp(String.raw`${escapeSequence}|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]`, 'g');

/** Text from elsewhere shown as lines in a terminal — a model's response, a file's contents, a spec's names — by `sessions show`, the browser, a diff. */
export function terminalText(text: string): string {
  return text.replace(controlsButLines, '');
}

/**
 * What the printers of text as lines remove (terminalText: escape sequences, controls, bidirectional
 * marks) — line breaks and tabs stay, as they do on screen.
 */
const unprinted = new RegExp(String.raw`${escapeSequence}|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]`, 'g');
const unprintedHint = new RegExp(unprinted.source);

export function hasUnprinted(text: string): boolean {
  return unprintedHint.test(text);
}

/** `text` with everything any printer removes removed: what a secret hidden between such characters reads as once printed. */
export function withoutUnprinted(text: string): string {
  return text.replace(unprinted, '');
}
