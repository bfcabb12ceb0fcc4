// CommandBatch: the few commands of a worker's pop go to Redis in one socket write, in order, each with its
// own reply, whether the connection is ready or not connected yet.
import { expect } from 'chai';
import type Redis from 'ioredis';
import { CommandBatch } from '../../lib/redis/CommandBatch';
import { randomPrefix } from '../support/redis';
import { useRedisQueue } from '../support/useRedisQueue';

describe('CommandBatch (integration)', function () {
  const redis = useRedisQueue();

  async function ready(): Promise<Redis> {
    const c = redis.connect();
    await c.ping();
    return c;
  }

  // How many times the socket underneath actually wrote.
  function countWrites(c: Redis): () => number {
    const stream = c.stream as unknown as Record<'_write' | '_writev', (...a: unknown[]) => unknown>;
    let writes = 0;
    for (const method of ['_write', '_writev'] as const) {
      const original = stream[method];
      if (typeof original !== 'function') continue;
      stream[method] = function (this: unknown, ...args: unknown[]) {
        writes++;
        return original.apply(this, args);
      };
    }
    return () => writes;
  }

  it('sends the commands in one write, in order, and answers each with its own reply or error', async () => {
    const c = await ready();
    const k = `${randomPrefix()}k`;
    const writes = countWrites(c);
    const write = new CommandBatch(c);
    write.add((t) => t.rpush(k, 'a', 'b'));
    write.add((t) => t.incr(k)); // wrong type: this command fails, the others do not
    write.add((t) => t.lpop(k));
    write.add((t) => t.llen(k));
    const replies = await write.send();
    expect(writes()).to.equal(1);
    expect(replies.map(([error]) => error?.message ?? null)).to.deep.equal([
      null,
      'WRONGTYPE Operation against a key holding the wrong kind of value',
      null,
      null,
    ]);
    expect(replies.map(([, result]) => result)).to.deep.equal([2, undefined, 'a', 1]);
  });

  it('a connection that is not connected yet runs the commands in order once it connects', async () => {
    const c = redis.connect({ lazyConnect: true });
    const k = `${randomPrefix()}k`;
    const write = new CommandBatch(c);
    write.add((t) => t.set(k, 'v'));
    write.add((t) => t.get(k));
    const replies = await write.send();
    expect(replies).to.deep.equal([
      [null, 'OK'],
      [null, 'v'],
    ]);
  });

  it('send() after an add threw still sends what was added before it, and later commands are not held', async () => {
    const c = await ready();
    const k = `${randomPrefix()}k`;
    const write = new CommandBatch(c);
    write.add((t) => t.set(k, 'sent anyway'));
    expect(() =>
      write.add(() => {
        throw new Error('a command could not be built');
      }),
    ).to.throw('a command could not be built');
    expect((await write.send())[0]).to.deep.equal([null, 'OK']);
    expect(await c.get(k)).to.equal('sent anyway');
    // a second send is a bug, and says so
    await write.send().then(
      () => expect.fail('a second send resolved'),
      (e: Error) => expect(e.message).to.match(/twice/),
    );
  });

  it('a connection cut after the write fails every reply with the reason, and nothing waits forever', async () => {
    const c = await ready();
    const write = new CommandBatch(c);
    write.add((t) => t.blpop(`${randomPrefix()}empty`, 5));
    write.add((t) => t.ping());
    const replies = write.send();
    c.disconnect();
    const settled = await replies;
    expect(settled).to.have.length(2);
    for (const [error] of settled) expect(error?.message).to.match(/Connection is closed/);
  });
});
