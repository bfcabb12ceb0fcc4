// `larq retry` pushes back the bytes `php artisan queue:retry` would: the payload decoded into PHP arrays
// and encoded again, so an empty object comes back as [] and an object keyed 0..n-1 as a list.
import { expect } from 'chai';
import { writeFileSync } from 'fs';
import { join } from 'path';
import { retryPayload } from '../../lib/payload/Payload';
import { requirePhp, runPhp } from '../support/php';
import { useTempDir } from '../support/useTempDir';

const PAYLOADS = [
  '{"uuid":"u","job":"App\\\\Handlers\\\\H@handle","data":{"empty":[],"obj":{},"nested":{"k":[],"o":{}}},"attempts":3,"tags":[],"meta":{}}',
  '{"job":"J","data":{"0":"a","1":"b"},"list":["x",{}],"gap":{"0":"a","2":"c"},"swapped":{"1":"b","0":"a"},"attempts":1}',
  '{"job":"J","data":{"big":12345678901234567890,"f":0.1,"neg":-0,"s":"é \\/ \\u2028"},"attempts":2}',
  '{"job":"J","data":{"10":1,"2":2,"a":3}}',
];

describe("interop: larq retry's payload is the one queue:retry pushes", function () {
  const temp = useTempDir('retry-payload', 'all');
  before(function () {
    requirePhp(this);
  });

  it('re-encodes each payload byte for byte as PHP does', async function () {
    const file = join(temp.path, 'payloads.json');
    writeFileSync(file, JSON.stringify(PAYLOADS));
    const res = await runPhp('retry-payload.php', [file]);
    expect(res.code, res.stderr).to.equal(0);
    const php = JSON.parse(res.stdout) as string[];
    expect(PAYLOADS.map((p) => retryPayload(p))).to.deep.equal(php);
  });
});
