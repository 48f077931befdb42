/** ESC sequences: CSI, OSC (ended by BEL or ST, or by nothing), and two-character escapes. */
const escapeSequence = String.raw`\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-_])`;

/**
 * ESC sequences and every other C0/C1 control character — a server's text printed as sent could
 * retitle the window, clear the screen or move the cursor — and the bidirectional overrides and
 * isolates (U+202A–U+202E, U+2066–U+2069), which make a line read otherwise than it is.
 */
const controls = new RegExp(String.raw`${escapeSequence}|[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]`, 'g');

/** Text from elsewhere (a server's model ids, its error messages, a name in a table's cell) made safe to print on one line. */
export function printable(text: string): string {
  return text.replace(controls, '');
}

/** The same, but line breaks and tabs stay. */
const controlsButLines = new RegExp(String.raw`${escapeSequence}|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]`, 'g');

/** Text from elsewhere shown as lines in a terminal — a model's response, a file's contents, a spec's names — by `sessions show`, the browser, a diff. */
export function terminalText(text: string): string {
  return text.replace(controlsButLines, '');
}

const controlsButLinesHint = new RegExp(controlsButLines.source);

/** Whether terminalText would change `text`: one scan, no copy. */
export function hasTerminalControls(text: string): boolean {
  return controlsButLinesHint.test(text);
}
