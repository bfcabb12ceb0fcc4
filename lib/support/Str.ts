// Laravel's Str::slug, for deriving the key and cache prefixes a Laravel skeleton derives from APP_NAME.
// Laravel first transliterates the title to ASCII with voku/portable-ascii's tables. larq carries no such
// tables: it spells out exactly the characters whose transliteration is certain (ASCII, Latin letters with
// accents, a few special Latin letters; spec/interop/slug.spec.ts checks each against Laravel's own
// Str::slug) and refuses a title with any other character, since a guessed prefix would silently point
// the worker at keys no PHP process writes.
import { InvalidOptionError } from '../errors';

// Latin letters that do not decompose into an ASCII letter and accents, spelled as Laravel spells them.
const LETTERS: Record<string, string> = {
  ß: 'ss',
  ẞ: 'SS',
  æ: 'ae',
  Æ: 'AE',
  œ: 'oe',
  Œ: 'OE',
  ø: 'o',
  Ø: 'O',
  đ: 'd',
  Đ: 'D',
  ð: 'd',
  Ð: 'D',
  þ: 'th',
  Þ: 'TH',
  ł: 'l',
  Ł: 'L',
  ħ: 'h',
  Ħ: 'H',
  ı: 'i',
  Ĳ: 'IJ',
  ĳ: 'ij',
  ĸ: 'k',
  Ŀ: 'L',
  ŀ: 'l',
  ŉ: 'n',
  Ŋ: 'N',
  ŋ: 'n',
  Ŧ: 'T',
  ŧ: 't',
  ſ: 's',
};

// The blocks whose accented letters Laravel's tables spell as their base letter: Latin-1 Supplement,
// Latin Extended-A and the Vietnamese part of Latin Extended Additional. (Its tables drop most other
// Latin Extended letters instead; spec/interop/slug.spec.ts shows which.)
const ACCENTED_BLOCKS: [number, number][] = [
  [0xc0, 0x17f],
  [0x1ea0, 0x1ef9],
];

/** A title Str::slug would transliterate with tables larq does not carry. */
export class UntransliterableTitleError extends InvalidOptionError {
  constructor(
    option: string,
    readonly title: string,
    readonly characters: string[],
  ) {
    super(
      option,
      `"${title}" has characters whose transliteration by Laravel's Str::slug larq cannot reproduce (${characters.map((c) => `"${c}"`).join(', ')}); ` +
        "give the prefix explicitly (the queue's `prefix`/`cachePrefix` options; REDIS_PREFIX and CACHE_PREFIX for the larq CLI), as your Laravel config has it",
    );
  }
}

// One character as ASCII, or undefined when its transliteration is not certain.
function asciiOf(char: string): string | undefined {
  if (char.charCodeAt(0) < 0x80) return char;
  if (LETTERS[char] !== undefined) return LETTERS[char];
  const code = char.codePointAt(0)!;
  if (!ACCENTED_BLOCKS.some(([from, to]) => code >= from && code <= to)) return undefined;
  const base = char.normalize('NFD').replace(/\p{M}+/gu, '');
  return /^[A-Za-z]$/.test(base) ? base : undefined;
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|-]/g, '\\$&');
}

/**
 * Laravel's `Str::slug(title, separator)` (13.x); throws UntransliterableTitleError, naming `option`,
 * for a title larq cannot slug exactly.
 */
export function slug(title: string, separator = '-', option = 'appName'): string {
  const unknown = new Set<string>();
  let s = '';
  for (const char of title.normalize('NFC')) {
    const ascii = asciiOf(char);
    if (ascii === undefined) unknown.add(char);
    else s += ascii;
  }
  if (unknown.size > 0) throw new UntransliterableTitleError(option, title, [...unknown]);
  const sep = escapeRegExp(separator);
  const other = separator === '-' ? '_' : '-';
  s = s.replace(new RegExp(`${escapeRegExp(other)}+`, 'g'), separator);
  s = s.replace(/@/g, `${separator}at${separator}`);
  s = s.toLowerCase();
  s = s.replace(new RegExp(`[^${sep}a-z0-9\\s]+`, 'g'), '');
  s = s.replace(new RegExp(`[${sep}\\s]+`, 'g'), separator);
  return s.replace(new RegExp(`^${sep}+|${sep}+$`, 'g'), '');
}
