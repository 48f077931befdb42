/**
 * ESC sequences (CSI, OSC, and two-character escapes) and every other C0/C1 control character.
 * A server's text printed as sent could retitle the window, clear the screen or move the cursor.
 */
const controls = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-_])|[\u0000-\u001f\u007f-\u009f]/g;

/** Text from elsewhere (a server's model ids, its error messages) made safe to print on one line. */
export function printable(text: string): string {
  return text.replace(controls, '');
}
