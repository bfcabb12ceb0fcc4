// The UUIDs larq writes (payload uuids, batch ids) and the failed-job IDs the CLI accepts.
import { expect } from 'chai';
import { validate, version } from 'uuid';
import { FakeClock } from '../../lib/clock';
import { InvalidArgumentError, UsageError } from '../../lib/cli/args';
import { main } from '../../lib/cli/main';
import { createObjectPayload, createStringPayload } from '../../lib/payload/createPayload';
import { isUuid, orderedUuid, randomUuid } from '../../lib/uuid';

async function run(...argv: string[]): Promise<{ status: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const status = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { status, out: out.join('\n'), err: err.join('\n') };
}

describe('uuids', () => {
  it('gives every payload a fresh lower-case v4 uuid', () => {
    const uuids = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const payload =
        i % 2
          ? createStringPayload({ job: 'App\\Legacy@run' })
          : createObjectPayload({ commandName: 'App\\Jobs\\A', command: 'O:10:"App\\Jobs\\A":0:{}' });
      const uuid = (JSON.parse(payload) as { uuid: string }).uuid;
      expect(uuid).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      uuids.add(uuid);
    }
    expect(uuids.size).to.equal(1000);
    expect(version(randomUuid())).to.equal(4);
  });

  it('orders batch ids as Str::orderedUuid does: 48 bits of time in 10-microsecond units, then v4 random', () => {
    const at = 1795625801457; // ms
    const id = orderedUuid(new FakeClock(at));
    expect(validate(id)).to.equal(true);
    expect(version(id)).to.equal(4);
    expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).to.equal(at * 100);
    // later ids sort later as text, however the random part falls
    const ids = [1000, 1001, 2000, 1795625801457, 1795625801458].map((ms) => orderedUuid(new FakeClock(ms)));
    expect([...ids].sort()).to.deep.equal(ids);
    expect(orderedUuid(new FakeClock(at))).to.not.equal(id);
  });

  it('recognises uuids', () => {
    expect(isUuid('9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d')).to.equal(true);
    expect(isUuid('9B1DEB4D-3B7D-4BAD-9BDD-2B0D7B3DCB6D')).to.equal(true);
    expect(isUuid('9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6')).to.equal(false);
    expect(isUuid('9b1deb4d3b7d4bad9bdd2b0d7b3dcb6d')).to.equal(false);
    expect(isUuid('')).to.equal(false);
  });
});

describe('failed-job IDs on the command line', () => {
  for (const [command, args] of [
    ['forget', ['forget', '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6']],
    ['retry', ['retry', '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d', '12ab']],
  ] as const) {
    it(`larq ${command} refuses an ID that is neither a UUID nor a row number, naming it (exit 2, nothing opened)`, async () => {
      const bad = args[args.length - 1];
      // no .env, Redis or database here: the argument is refused before anything is opened
      const result = await run(...args, '--env=/nonexistent/.env');
      expect(result).to.deep.equal({
        status: 2,
        out: '',
        err: `larq ${command}: "${bad}" is not a failed job ID (a UUID, a row number or an invalid-… entry, as larq failed lists them)`,
      });
    });
  }

  it('throws InvalidArgumentError, a UsageError carrying the argument', async () => {
    const { retry } = await import('../../lib/cli/commands/retry');
    const error = await retry
      .run(
        { command: 'retry', values: {}, positionals: ['all', 'nope'] },
        { out: () => undefined, err: () => undefined },
      )
      .catch((e: unknown) => e);
    expect(error).to.be.instanceOf(InvalidArgumentError).and.instanceOf(UsageError);
    expect((error as InvalidArgumentError).argument).to.equal('nope');
  });
});
