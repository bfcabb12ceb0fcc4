// EncodedCommand must put on the wire exactly the bytes ioredis writes for the same command, for any
// text: it guesses each argument's header from its length and fixes it up when UTF-8 needs more digits.
import { expect } from 'chai';
import { Command } from 'ioredis';
import { EncodedCommand } from '../../../lib/redis/EncodedCommand';

// What ioredis itself writes for `name key ...args`.
function ioredisBytes(name: string, key: string, args: (string | Buffer)[]): Buffer {
  const writable = new Command(name, [key, ...args]).toWritable({});
  return typeof writable === 'string' ? Buffer.from(writable, 'utf8') : writable;
}

function encoded(name: string, key: string, args: (string | Buffer)[], sizeHint?: number): Buffer {
  const command = new EncodedCommand(name, key, sizeHint);
  for (const arg of args) command.add(arg);
  return command.toWritable() as Buffer;
}

const TEXTS: [string, string][] = [
  ['an empty string', ''],
  ['one character', 'a'],
  ['a payload', JSON.stringify({ uuid: 'u1', displayName: 'App\\Jobs\\A', data: { command: 'O:8:"App\\A":0:{}' } })],
  ['2-byte characters that take the byte count from 1 digit to 2', 'é'.repeat(5)],
  ['3-byte characters, 1 digit to 2', '€'.repeat(4)],
  ['2-byte characters, 2 digits to 3', 'é'.repeat(50)],
  ['surrogate pairs, 1 digit to 2', '😀'.repeat(3)],
  ['a lone surrogate (written as U+FFFD, as Node writes it)', 'a\ud800b'],
  ['ASCII that stays at its digit count with one 2-byte character', `${'x'.repeat(98)}é`],
  ['Latin-1 text (one-byte in V8, two bytes in UTF-8)', 'ÿ'.repeat(600)],
  ['CR, LF and NUL inside the text', 'a\r\nb\0c'],
];

describe('EncodedCommand', () => {
  for (const [what, text] of TEXTS) {
    it(`writes the bytes ioredis writes for ${what}`, () => {
      expect(encoded('rpush', 'queues:default', [text])).to.deep.equal(ioredisBytes('rpush', 'queues:default', [text]));
    });
  }

  it('writes the bytes ioredis writes for every text above in one command, in order', () => {
    const args = TEXTS.map(([, text]) => text);
    expect(encoded('rpush', 'queues:default', args)).to.deep.equal(ioredisBytes('rpush', 'queues:default', args));
  });

  it('writes Buffers as ioredis does, byte for byte, even bytes that are not UTF-8 (a reserved payload as popped)', () => {
    const args = [Buffer.from('{"attempts":1}'), Buffer.alloc(0), Buffer.from([0xff, 0xfe, 0x00, 0x0d, 0x0a]), Buffer.alloc(1000, 0x80), 'text after', Buffer.from('é')];
    expect(encoded('zrem', 'queues:default:reserved', args, 8)).to.deep.equal(ioredisBytes('zrem', 'queues:default:reserved', args));
  });

  it('grows past its size hint without losing what it held', () => {
    const args = Array.from({ length: 300 }, (_, i) => `${'é'.repeat(i % 40)}${i}`);
    expect(encoded('rpush', 'q', args, 16)).to.deep.equal(ioredisBytes('rpush', 'q', args));
  });

  it('fits() says whether an argument goes in without the buffer growing, for strings of any UTF-8 width and Buffers', () => {
    // bulk() ends a chunk where fits() says no: a yes must never grow the buffer, and a no must not come
    // while the room left holds the argument's most UTF-8 bytes (3 per UTF-16 unit) and its header.
    for (const unit of ['x', 'é', '€', '😀']) {
      const command = new EncodedCommand('rpush', 'q', 4096);
      const args: (string | Buffer)[] = [];
      let grew = 0;
      for (let i = 0; i < 400; i++) {
        const arg = i % 3 === 2 ? Buffer.alloc(20 + (i % 50), 0x61) : unit.repeat(1 + (i % 90));
        const before = command.capacity;
        const left = before - command.byteLength;
        const fits = command.fits(arg);
        if (left >= (typeof arg === 'string' ? arg.length * 3 : arg.length) + 16) expect(fits, `${unit} #${i}`).to.equal(true);
        command.add(arg);
        args.push(arg);
        if (fits) expect(command.capacity, `${unit} #${i}`).to.equal(before);
        else grew++;
      }
      expect(grew, unit).to.be.greaterThan(0);
      expect(command.toWritable()).to.deep.equal(ioredisBytes('rpush', 'q', args));
    }
  });

  it('writes a non-ASCII key and command name as ioredis does, and counts the arguments added', () => {
    const command = new EncodedCommand('RPUSH', 'prefix_queues:ünïcode');
    command.add('1').add('2');
    expect(command.size).to.equal(2);
    expect(command.toWritable()).to.deep.equal(ioredisBytes('RPUSH', 'prefix_queues:ünïcode', ['1', '2']));
  });

  it('writes the same bytes when sent twice (a command replayed after a reconnect)', () => {
    const command = new EncodedCommand('rpush', 'q').add('a').add('é');
    expect(command.toWritable()).to.deep.equal(command.toWritable());
  });

  it('writes a repeated argument (bulk\'s notify tokens) as ioredis writes it given that many times, after other arguments too', () => {
    const tokens = new Array<string>(137).fill('1');
    expect(new EncodedCommand('rpush', 'q:notify', 8).addRepeated('1', 137).toWritable()).to.deep.equal(ioredisBytes('rpush', 'q:notify', tokens));
    const mixed = new EncodedCommand('rpush', 'q', 4).add('é').addRepeated('€', 3).addRepeated('x', 0);
    expect(mixed.size).to.equal(4);
    expect(mixed.toWritable()).to.deep.equal(ioredisBytes('rpush', 'q', ['é', '€', '€', '€']));
  });

  it('keeps the key as its ioredis argument, which is what a cluster pipeline reads its slot from', () => {
    expect(new EncodedCommand('rpush', '{queues:default}').getKeys()).to.deep.equal(['{queues:default}']);
  });
});
