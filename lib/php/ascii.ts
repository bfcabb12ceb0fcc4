// The cheap question asked of every string on the way to PHP bytes: is it plain ASCII? Then its UTF-8
// length is its length, it holds no surrogate, and JSON.stringify already escapes it as PHP does.

/** Below this length a JS loop beats the native call; above it Buffer.byteLength's vector count wins. */
const NATIVE_FROM = 24;

/** True when every UTF-16 unit of `text` is below 0x80. */
export function isAscii(text: string): boolean {
  if (text.length >= NATIVE_FROM) return Buffer.byteLength(text, 'utf8') === text.length;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}
