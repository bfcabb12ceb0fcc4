// phpJsonEncode's prettyPrint option against PHP's json_encode(JSON_PRETTY_PRINT), the form Laravel's
// file failed-job store writes: each text is decoded as PHP's json_decode would read it (objects stay
// objects, key order kept) and written back by both.
import { spawnSync } from 'child_process';
import { expect } from 'chai';
import { phpJsonDecode, phpJsonEncode } from '../../../lib/payload/json';
import { requirePhp } from '../../support/php';

const TEXTS = [
  '[]',
  '{}',
  '[[],{},[[]],{"a":{}}]',
  '{"id":"9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d","payload":"{\\"uuid\\":\\"x\\",\\"job\\":\\"App\\\\\\\\Jobs\\\\\\\\A\\"}","failed_at_timestamp":1795276770}',
  '{"2":"b","1":"a","x":[1,2.5,-0.0,1e25,12345678901234567890],"nested":{"deeper":{"list":[true,false,null]}}}',
  '{"path":"a/b","unicode":"naïve 日本語 😀","ctl":"\\u0000\\n\\t","sep":"\\u2028"}',
  '[{"a":1},{"b":[{"c":[]}]}]',
];

describe('phpJsonEncode prettyPrint', () => {
  it('writes members on their own lines, four spaces per level, ": " after keys, [] and {} when empty', () => {
    expect(phpJsonEncode(phpJsonDecode('{"a":[1,{"b":[]}],"c":{}}'), { prettyPrint: true })).to.equal(
      [
        '{',
        '    "a": [',
        '        1,',
        '        {',
        '            "b": []',
        '        }',
        '    ],',
        '    "c": {}',
        '}',
      ].join('\n'),
    );
    expect(phpJsonEncode(new Map<string, unknown>([['k', [1]]]), { prettyPrint: true })).to.equal(
      '{\n    "k": [\n        1\n    ]\n}',
    );
    expect(phpJsonEncode('a/b', { prettyPrint: true })).to.equal('"a\\/b"');
  });

  it('matches PHP json_encode(JSON_PRETTY_PRINT) byte for byte, with and without JSON_UNESCAPED_UNICODE', function () {
    requirePhp(this);
    const script = `<?php
foreach (json_decode(stream_get_contents(STDIN)) as $text) {
  $value = json_decode($text);
  echo json_encode([json_encode($value, JSON_PRETTY_PRINT), json_encode($value, JSON_PRETTY_PRINT | JSON_UNESCAPED_UNICODE)]), "\\n";
}`;
    const php = spawnSync('php', ['-r', script.replace(/^<\?php\n/, '')], {
      input: JSON.stringify(TEXTS),
      encoding: 'utf8',
    });
    expect(php.status, php.stderr).to.equal(0);
    const lines = php.stdout.trim().split('\n');
    expect(lines).to.have.length(TEXTS.length);
    TEXTS.forEach((text, i) => {
      const [plain, unicode] = JSON.parse(lines[i]) as [string, string];
      const value = phpJsonDecode(text);
      expect(phpJsonEncode(value, { prettyPrint: true, unescapedUnicode: false }), text).to.equal(plain);
      expect(phpJsonEncode(value, { prettyPrint: true }), text).to.equal(unicode);
    });
  });
});
