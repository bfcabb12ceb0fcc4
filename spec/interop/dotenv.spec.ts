// larq reads a Laravel app's .env as Laravel does: the same files, loaded by the phpdotenv Laravel boots
// with (Debian's php-vlucas-phpdotenv, through compat-fixtures/php/dotenv.php) and by larq's
// loadEnvironment, give the same variables, and a file phpdotenv refuses is refused by larq too.
import { expect } from 'chai';
import { writeFileSync } from 'fs';
import { join } from 'path';
import { DotenvError, loadEnvironment } from '../../lib/cli/dotenv';
import { requirePhp, runPhp } from '../support/php';
import { useTempDir } from '../support/useTempDir';

interface Case {
  name: string;
  text: string;
  /** Process environment the file is loaded under (it wins over the file, and feeds ${VAR}). */
  env?: Record<string, string>;
}

const CASES: Case[] = [
  {
    name: 'an unquoted # starts a comment even without a space',
    text: 'REDIS_PASSWORD=abc#123\nB=x # note\nC=#all comment\n',
  },
  { name: 'spaces around = and the value', text: 'A = spaced \n  B=  lead\n' },
  {
    name: 'export and quoted names, names starting with a digit, dots',
    text: 'export A=1\n"B"=2\n\'C\'=3\n1START=4\nDOT.KEY=5\n',
  },
  { name: 'an = inside the value', text: 'URL=redis://h:1/0?x=y\n' },
  { name: 'single quotes are literal', text: 'RAW=\'keep ${A} \\n # "this"\'\nA=1\n' },
  {
    name: 'double quotes unescape \\" \\\\ \\$ \\n \\t \\r \\f \\v',
    text: 'Q="a \\"b\\" c\\\\d \\$e \\nf\\tg\\rh\\fi\\vj" # c\n',
  },
  { name: 'a backslash in an unquoted value is kept', text: 'A=a\\nb\\\\c\n' },
  { name: 'a quote inside an unquoted value is kept', text: 'A=x\'y\nB=x"y\n' },
  {
    name: '${VAR} from earlier lines, in unquoted and double-quoted values',
    text: 'H=host\nP=6380\nURL=redis://${H}:${P}/0\nQ="${H}-${P}"\nS=\'${H}\'\n',
  },
  { name: 'an unknown ${VAR} stays as written', text: 'A=${NOPE}\nB="x${NOPE}y"\n' },
  { name: '$VAR without braces and an escaped \\${VAR} stay literal', text: 'H=h\nA=$H\nB="\\${H}"\nC=${H\n' },
  {
    name: 'the process environment wins, as a value and inside ${VAR}',
    text: 'APP_NAME=File\nURL=${APP_NAME}/${REDIS_PORT}\n',
    env: { APP_NAME: 'Process', REDIS_PORT: '6399' },
  },
  { name: 'a later line wins', text: 'A=1\nA=2\n' },
  { name: 'a name without = clears the variable', text: 'A=1\nA\nB=2\n' },
  {
    name: 'multi-line double-quoted values',
    text: 'KEY="-----BEGIN\nline two\n-----END"\nNEXT=1\nK2="a\n\\"b\\"\nc" # tail\n',
  },
  { name: 'empty values', text: 'A=\nB=""\nC=\'\'\nD= \n' },
  { name: 'CRLF and CR line ends', text: 'A=1\r\nB="2"\r\nC=3\rD=4\r\n' },
  { name: 'a byte-order mark', text: '\uFEFFA=1\n' },
  { name: 'unicode values', text: 'APP_NAME="Магазин Ёж"\nB=café\n' },
  { name: 'parentheses and braces', text: 'A=(x)\nB={y}\nC=f(${A})\n' },
  { name: 'comments and blank lines', text: '# top\n\n   # indented\nA=1\n\n' },
  { name: 'refused: whitespace inside an unquoted value', text: 'APP_NAME=Acme Shop\n' },
  { name: 'refused: text after a closing quote', text: 'A="x" y\n' },
  { name: 'refused: text after a closing single quote', text: "A='x'y\n" },
  { name: 'refused: an unknown escape', text: 'A="\\u00e9"\n' },
  { name: 'refused: an unclosed single quote', text: "A='open\nB=2\n" },
  { name: 'refused: an unclosed double quote', text: 'A="open\nB=2\n' },
  { name: 'refused: an invalid name', text: 'not-a-name=1\n' },
  { name: 'refused: an empty name', text: '=1\n' },
];

describe("interop: .env files read as Laravel's phpdotenv reads them", function () {
  this.timeout(60000);
  const temp = useTempDir('dotenv-interop', 'all');

  before(function () {
    requirePhp(this);
  });

  for (const [index, c] of CASES.entries()) {
    it(c.name, async function () {
      const file = join(temp.path, `case${index}.env`);
      writeFileSync(file, c.text);
      const env = c.env ?? {};
      const res = await runPhp('dotenv.php', [temp.path, `case${index}.env`], env);
      expect(res.code, res.stderr).to.equal(0);
      const php = JSON.parse(res.stdout) as { vars?: Record<string, string | null>; error?: string };

      if (php.error !== undefined) {
        expect(() => loadEnvironment(file, env), `phpdotenv: ${php.error}`).to.throw(
          DotenvError,
          new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} line \\d+: `),
        );
        return;
      }
      const expected: Record<string, string> = { ...env };
      for (const [name, value] of Object.entries(php.vars ?? {})) {
        if (value === null) delete expected[name];
        else expected[name] = value;
      }
      expect(loadEnvironment(file, env)).to.deep.equal(expected);
    });
  }
});
