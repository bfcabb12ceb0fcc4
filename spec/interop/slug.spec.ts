// The key prefix larq derives from APP_NAME is the one Laravel derives: larq's slug equals Laravel's own
// Str::slug (compat-fixtures/php/slug.php) for every title it accepts, accepts every Latin letter, and
// refuses, naming the fix, the titles whose transliteration it cannot reproduce.
import { expect } from 'chai';
import { writeFileSync } from 'fs';
import { join } from 'path';
import { laravelPrefix } from '../../lib/redis/keys';
import { slug, UntransliterableTitleError } from '../../lib/support/Str';
import { requirePhp, runPhp } from '../support/php';
import { useTempDir } from '../support/useTempDir';

function range(from: number, to: number): string[] {
  return Array.from({ length: to - from + 1 }, (_, i) => String.fromCodePoint(from + i));
}

// Every printable ASCII character, the Latin blocks, and titles in other scripts, with emoji and symbols.
const ASCII = range(0x20, 0x7e);
const LATIN = [...range(0xc0, 0x24f), ...range(0x1e00, 0x1eff)].filter((c) => /\p{L}/u.test(c));
const TITLES = [
  'Laravel',
  'Acme Shop',
  'my app!!',
  '  --My__App!! 2-- ',
  'A&B',
  '50% off',
  'x@y.com',
  'Café Crème',
  'Straße',
  'Ærø',
  'Łódź',
  'İstanbul',
  'Ağaç',
  'Điện Biên Phủ',
  'Română ţară',
  'naïve façade',
  'Œuvre',
  'þorn',
  'Ðuro Šćepanović',
  'Café\u0301 decomposed',
  'магазин',
  'Магазин Ёж',
  'Ελληνικά',
  'Αθήνα',
  '中文名字',
  '東京ショップ',
  '한국어',
  'عربي',
  'עברית',
  'हिन्दी',
  'ไทย',
  'Pokémon 🎉 Shop',
  '🚀',
  '½ price',
  '™ brand',
  '€uro',
  '¥en',
  '№5',
  'ﬁ ligature',
  'ĳssel',
  'µ',
  'Ⅻ',
  'non\u00a0breaking',
];

describe("interop: APP_NAME to key prefix as Laravel's Str::slug does", function () {
  this.timeout(60000);
  const temp = useTempDir('slug', 'all');
  let laravel: Map<string, [string, string]>;

  before(async function () {
    requirePhp(this);
    const titles = [
      ...ASCII.map((c) => `a${c}b`),
      ...LATIN,
      ...LATIN.map((c) => `Big ${c}${c.toLowerCase()} name`),
      ...TITLES,
    ];
    const file = join(temp.path, 'titles.json');
    writeFileSync(file, JSON.stringify(titles));
    const res = await runPhp('slug.php', [file]);
    expect(res.code, res.stderr).to.equal(0);
    const slugs = JSON.parse(res.stdout) as [string, string][];
    laravel = new Map(titles.map((t, i) => [t, slugs[i]]));
  });

  // What larq makes of a title: both slugs, or 'refused'.
  function larq(title: string): [string, string] | 'refused' {
    try {
      return [slug(title, '_'), slug(title, '-')];
    } catch (e) {
      if (e instanceof UntransliterableTitleError) return 'refused';
      throw e;
    }
  }

  it("equals Laravel's slug for every printable ASCII character", function () {
    const differ = ASCII.filter((c) => JSON.stringify(larq(`a${c}b`)) !== JSON.stringify(laravel.get(`a${c}b`)));
    expect(differ).to.deep.equal([]);
  });

  it(`slugs every Latin letter it accepts as Laravel does (${LATIN.length} letters, alone and in a title)`, function () {
    const differ = LATIN.flatMap((c) => [c, `Big ${c}${c.toLowerCase()} name`])
      .filter((t) => larq(t) !== 'refused' && JSON.stringify(larq(t)) !== JSON.stringify(laravel.get(t)))
      .map((t) => `${t}: larq ${JSON.stringify(larq(t))}, Laravel ${JSON.stringify(laravel.get(t))}`);
    expect(differ).to.deep.equal([]);
  });

  it('accepts every letter of Latin-1 and Latin Extended-A, and the accented letters of Vietnamese and other Latin scripts', function () {
    const common = [...range(0xc0, 0x17f), ...range(0x1ea0, 0x1ef9)].filter(
      (c) => /\p{L}/u.test(c) && c !== '\u00d7' && c !== '\u00f7',
    );
    expect(common.filter((c) => larq(c) === 'refused')).to.deep.equal([]);
  });

  it('either equals Laravel or refuses, for titles in other scripts, with symbols and emoji', function () {
    const wrong = TITLES.filter((t) => {
      const ours = larq(t);
      return ours !== 'refused' && JSON.stringify(ours) !== JSON.stringify(laravel.get(t));
    });
    expect(wrong).to.deep.equal([]);
    expect(larq('магазин')).to.equal('refused');
    expect(larq('中文名字')).to.equal('refused');
    expect(larq('Pokémon 🎉 Shop')).to.equal('refused');
  });

  it('refuses with an error that names the option, the characters and the fix', function () {
    expect(() => laravelPrefix('магазин', 12)).to.throw(
      UntransliterableTitleError,
      /^appName: "магазин" has characters .*\("м", "а", "г", "з", "и", "н"\).*REDIS_PREFIX and CACHE_PREFIX/,
    );
  });
});
