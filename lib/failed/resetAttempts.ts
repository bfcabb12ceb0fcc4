// queue:retry resets a payload's `attempts` to 0 by decoding and re-encoding it. A payload whose bytes are
// not valid UTF-8 cannot go through a decode and stay the same bytes (PHP's json_decode refuses it, a JS
// string would replace the bytes with U+FFFD), so larq edits only the value of the top-level `attempts`
// in place and leaves every other byte as it was.
import { InvalidPayloadError } from '../errors';

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);

/** `bytes` (a JSON object) with its top-level `attempts` value replaced by 0; unchanged when absent or null, as Laravel's isset(). */
export function resetAttemptsInBytes(bytes: Buffer): Buffer {
  // latin1 maps each byte to one char and back; JSON's structural characters are ASCII and UTF-8's
  // multi-byte sequences never contain ASCII bytes, so positions found in the text are byte offsets.
  const text = bytes.toString('latin1');
  const fail = (why: string): never => {
    throw new InvalidPayloadError(
      `Payload is not a JSON object whose attempts can be reset: ${why}`,
      bytes.toString('utf8'),
    );
  };
  let i = skipSpace(text, 0);
  if (text[i] !== '{') fail('it does not start with "{"');
  let span: [number, number] | null = null;
  i = skipSpace(text, i + 1);
  if (text[i] === '}') return bytes;
  for (;;) {
    if (text[i] !== '"') fail(`a key was expected at byte ${i}`);
    const keyEnd = skipString(text, i);
    const key = text.slice(i, keyEnd);
    i = skipSpace(text, keyEnd);
    if (text[i] !== ':') fail(`":" was expected at byte ${i}`);
    const valueStart = skipSpace(text, i + 1);
    const valueEnd = skipValue(text, valueStart);
    // The last of duplicate keys wins, as in PHP's json_decode.
    if (decodeKey(key) === 'attempts')
      span = text.slice(valueStart, valueEnd) === 'null' ? null : [valueStart, valueEnd];
    i = skipSpace(text, valueEnd);
    if (text[i] === ',') i = skipSpace(text, i + 1);
    else if (text[i] === '}') break;
    else fail(`"," or "}" was expected at byte ${i}`);
  }
  if (span === null) return bytes;
  return Buffer.concat([bytes.subarray(0, span[0]), Buffer.from('0'), bytes.subarray(span[1])]);
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && WHITESPACE.has(text[i])) i++;
  return i;
}

// From an opening quote to just past its closing quote.
function skipString(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === '"') return j + 1;
  }
  throw new InvalidPayloadError('Payload has an unterminated string');
}

// Past one JSON value: a string, an object or array (brackets counted outside strings), or a literal.
function skipValue(text: string, i: number): number {
  if (text[i] === '"') return skipString(text, i);
  if (text[i] === '{' || text[i] === '[') {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const c = text[j];
      if (c === '"') j = skipString(text, j) - 1;
      else if (c === '{' || c === '[') depth++;
      else if ((c === '}' || c === ']') && --depth === 0) return j + 1;
    }
    throw new InvalidPayloadError('Payload has an unclosed object or array');
  }
  let j = i;
  while (j < text.length && !WHITESPACE.has(text[j]) && text[j] !== ',' && text[j] !== '}' && text[j] !== ']') j++;
  if (j === i) throw new InvalidPayloadError(`Payload has no value at byte ${i}`);
  return j;
}

function decodeKey(quoted: string): string | null {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return null;
  }
}
