// xxh128 against PHP's hash('xxh128', ...): outputs recorded from PHP 8.2 for inputs that take each of
// XXH3-128's length branches (0, 1-3, 4-8, 9-16, 17-128, 129-240, over 240 bytes), plus a live PHP check.
import { expect } from 'chai';
import { spawnSync } from 'child_process';
import { xxh128 } from '../../../lib/features/xxh128';
import { hasBinary, inCI } from '../../support/redis';

const TEXT = 'App\\Listeners\\SendShipmentNotification '.repeat(40);
const PHP_DIGESTS: [number, string][] = [
  [0, '99aa06d3014798d86001c324468d497f'],
  [1, '9b0498cbe3839becd0d496e05c553485'],
  [3, '2f9c842c90c62576ce7286aa30b0e33b'],
  [4, 'cf4271d570108adb5c36cbe4529b3f44'],
  [8, '502bac8a53cfc2306b798a0fb8ef6641'],
  [9, '44ca78d78c5b1a75f3097a9f16d0a272'],
  [16, 'ab301ecb43d6219d9260a721b77d5098'],
  [17, '0925d0682b143cf84c1461016a61bf20'],
  [128, '5519c8e305524d9f0c37d44a64c6321c'],
  [129, '5540178007f7e1d8ff3cdf73d7aea7af'],
  [240, 'cdefdc17c411a46d8cfe66a4abfda8eb'],
  [241, '1a108281cebecfd526fc31b7e9a70c01'],
  [1000, 'fedbd3402e0c74907a749ba422bf6512'],
];

describe("xxh128 (PHP's hash('xxh128'))", () => {
  it('gives the digests PHP gave, for every length branch', async () => {
    for (const [n, digest] of PHP_DIGESTS) expect(await xxh128(TEXT.slice(0, n)), `${n} bytes`).to.equal(digest);
    expect(await xxh128('abc')).to.equal('06b05ab6733a618578af5f94892f3950');
  });

  it('hashes the UTF-8 bytes, as PHP does, and agrees with the php binary on odd inputs', async function () {
    expect(await xxh128('Réservation 日本')).to.equal('cc0611ade88f0809720e134067778fcd');
    if (!hasBinary('php')) {
      if (inCI) throw new Error('php is missing');
      return this.skip();
    }
    const inputs = ['Nightly report n1', 'x'.repeat(300), 'é'.repeat(70), '\u0000\u0001 tab\t'];
    const php = spawnSync(
      'php',
      ['-r', 'foreach (json_decode(stream_get_contents(STDIN)) as $s) echo hash("xxh128", $s), "\\n";'],
      { input: JSON.stringify(inputs), encoding: 'utf8' },
    );
    const want = php.stdout.trim().split('\n');
    expect(await Promise.all(inputs.map(xxh128))).to.deep.equal(want);
  });
});
