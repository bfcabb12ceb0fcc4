// Reading a Laravel .env as Laravel's dotenv does: the syntax, and the process environment winning.
import { expect } from 'chai';
import { writeFileSync } from 'fs';
import { join } from 'path';
import { DotenvError, laravelEnv, loadEnvironment, parseDotenv } from '../../../lib/cli/dotenv';
import { InvalidOptionError } from '../../../lib/errors';
import { useTempDir } from '../../support/useTempDir';

describe('larq CLI .env files', function () {
  it('reads KEY=value lines, export, comments and blank lines', function () {
    const env = parseDotenv(
      [
        '# comment',
        '',
        'APP_NAME=Shop',
        'export REDIS_HOST=10.0.0.5 # trailing',
        'SPACED = x ',
        'HASH=a#b',
        'EMPTY=',
        'DOTTED.KEY=1',
      ].join('\n'),
    );
    // phpdotenv ends an unquoted value at a `#` even without a space before it
    expect(env).to.deep.equal({
      APP_NAME: 'Shop',
      REDIS_HOST: '10.0.0.5',
      SPACED: 'x',
      HASH: 'a',
      EMPTY: '',
      'DOTTED.KEY': '1',
    });
  });

  it('keeps single-quoted values literal and unescapes double-quoted ones', function () {
    const env = parseDotenv(
      ["RAW='keep ${NOT} \\n # this'", 'Q="a \\"b\\"\\tc\\nd" # comment', 'DOLLAR="\\${X}"', 'X=1'].join('\n'),
    );
    expect(env).to.deep.equal({ RAW: 'keep ${NOT} \\n # this', Q: 'a "b"\tc\nd', DOLLAR: '${X}', X: '1' });
  });

  it('lets a double-quoted value span lines', function () {
    expect(parseDotenv('KEY="-----BEGIN\nline\n-----END"\nNEXT=1')).to.deep.equal({
      KEY: '-----BEGIN\nline\n-----END',
      NEXT: '1',
    });
  });

  it('expands ${VAR} from the process first, then earlier lines, else leaves it as written', function () {
    const text = [
      'REDIS_HOST=file-host',
      'URL=redis://${REDIS_HOST}:${REDIS_PORT}/${MISSING}',
      'QUOTED="${REDIS_HOST}"',
    ].join('\n');
    expect(parseDotenv(text)).to.include({ URL: 'redis://file-host:${REDIS_PORT}/${MISSING}', QUOTED: 'file-host' });
    expect(parseDotenv(text, (name) => ({ REDIS_HOST: 'env-host', REDIS_PORT: '6380' })[name])).to.include({
      URL: 'redis://env-host:6380/${MISSING}',
      QUOTED: 'env-host',
    });
  });

  it('handles CRLF line ends and a byte-order mark', function () {
    expect(parseDotenv('\uFEFFA=1\r\nB="2"\r\n')).to.deep.equal({ A: '1', B: '2' });
  });

  it('names the file and line of a broken entry', function () {
    expect(() => parseDotenv('A=1\nnot a variable', undefined, '/app/.env')).to.throw(
      DotenvError,
      '/app/.env line 2: an invalid name at [not a variable]',
    );
    expect(() => parseDotenv("A=1\nB='open", undefined, '.env')).to.throw(
      DotenvError,
      ".env line 2: a missing closing quote at ['open]",
    );
    expect(() => parseDotenv('A="x" y', undefined, '.env')).to.throw(
      DotenvError,
      '.env line 1: unexpected whitespace at ["x" y]',
    );
    expect(() => parseDotenv('APP_NAME=Acme Shop', undefined, '.env')).to.throw(
      DotenvError,
      '.env line 1: unexpected whitespace at [Acme Shop]',
    );
    expect(() => parseDotenv('A="\\u00e9"', undefined, '.env')).to.throw(
      DotenvError,
      '.env line 1: an unexpected escape sequence',
    );
    expect(() => parseDotenv('=1', undefined, '.env')).to.throw(DotenvError, '.env line 1: an unexpected equals');
  });

  it('drops a double-quoted value that never closes, with the lines after it, as phpdotenv does', function () {
    expect(parseDotenv('A=1\nB="open\nC=2\n')).to.deep.equal({ A: '1' });
  });

  it('clears a variable named on a line without =', function () {
    expect(parseDotenv('A=1\nA\nB=${A}')).to.deep.equal({ B: '${A}' });
  });

  describe('loadEnvironment', function () {
    const temp = useTempDir('dotenv', 'all');

    it('merges the file under the process environment, as Laravel loads .env immutably', function () {
      const file = join(temp.path, '.env');
      writeFileSync(file, 'APP_NAME=File\nREDIS_PORT=6380\nURL=${APP_NAME}\n');
      expect(loadEnvironment(file, { APP_NAME: 'Process', OTHER: 'x' })).to.deep.equal({
        APP_NAME: 'Process',
        REDIS_PORT: '6380',
        URL: 'Process',
        OTHER: 'x',
      });
      expect(loadEnvironment(undefined, { A: '1' })).to.deep.equal({ A: '1' });
    });

    it('refuses a missing file', function () {
      expect(() => loadEnvironment(join(temp.path, 'nope.env'), {})).to.throw(
        DotenvError,
        /nope\.env: no such \.env file/,
      );
    });
  });

  it("reads values as Laravel's env(): null, empty, quotes, numbers", function () {
    const env = laravelEnv({ A: 'null', B: '(NULL)', C: 'empty', D: '"quoted"', E: '42', F: '1.5', G: 'x', H: '' });
    expect([env.get('A'), env.get('B'), env.get('C'), env.get('D'), env.get('missing')]).to.deep.equal([
      undefined,
      undefined,
      '',
      'quoted',
      undefined,
    ]);
    expect([env.isNull('A'), env.isNull('C'), env.prefix('A'), env.prefix('missing'), env.prefix('G')]).to.deep.equal([
      true,
      false,
      '',
      undefined,
      'x',
    ]);
    expect([env.int('E', 0), env.int('A', 7), env.int('H', 8), env.number('F', 0)]).to.deep.equal([42, 7, 8, 1.5]);
    expect(() => env.int('F', 0)).to.throw(InvalidOptionError, 'F: must be a whole number >= 0, got "1.5"');
    expect(() => env.int('E', 0, 10)).to.throw(InvalidOptionError, 'E: must be a whole number from 0 to 10, got "42"');
    expect(() => env.number('G', 0)).to.throw(InvalidOptionError, 'G: must be a number >= 0, got "x"');
  });
});
