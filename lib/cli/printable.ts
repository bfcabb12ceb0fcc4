// Text from a job (its name, ids, queue, an exception message) on its way to a terminal: control
// characters would let a payload move the cursor, recolour, ring, or forge whole lines of output, so
// each one is shown as an escape instead.

// C0 controls, DEL, C1 controls (0x9B is an 8-bit CSI), the Unicode line and paragraph separators, and
// the bidirectional overrides and isolates that reorder what follows them.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\x1b': '\\e', '\x07': '\\a' };

/** `text` with every control character written as an escape (`\n`, `\e`, `\x00`, `\u202e`). */
export function printable(text: string): string {
  return text.replace(CONTROL, (c) => NAMED[c] ?? (c.charCodeAt(0) <= 0xff ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`));
}

/** JSON.stringify's output with the controls it leaves raw (DEL, C1, separators, bidi) as \u escapes. */
export function printableJson(value: unknown): string {
  return JSON.stringify(value).replace(CONTROL, (c) => `\\u${hex(c, 4)}`);
}

function hex(c: string, width: number): string {
  return c.charCodeAt(0).toString(16).padStart(width, '0');
}
