// PipelineBatch: the writes of one turn of the event loop in one pipeline (Horizon's records of the jobs
// a worker finishes together), each caller told only about its own commands.
import { expect } from 'chai';
import { PipelineBatch } from '../../lib/redis/PipelineBatch';
import { useRedisQueue } from '../support/useRedisQueue';

describe('PipelineBatch', () => {
  const fixture = useRedisQueue();

  it("sends one turn's writes in one pipeline, in the order they were added", async () => {
    const client = fixture.connect();
    const key = `${fixture.prefix}order`;
    let pipelines = 0;
    const counting = new Proxy(client, {
      get: (target, property) =>
        property === 'pipeline'
          ? () => {
              pipelines++;
              return target.pipeline();
            }
          : Reflect.get(target, property, target),
    });
    const batch = new PipelineBatch(counting);
    await Promise.all(Array.from({ length: 50 }, (_, i) => batch.add((pipe) => pipe.rpush(key, String(i)))));
    expect(pipelines).to.equal(1);
    expect(await client.lrange(key, 0, -1)).to.deep.equal(Array.from({ length: 50 }, (_, i) => String(i)));
    await batch.add((pipe) => pipe.rpush(key, 'next turn'));
    expect(pipelines).to.equal(2);
  });

  it("rejects a caller with its own command's error only", async () => {
    const client = fixture.connect();
    const list = `${fixture.prefix}list`;
    const text = `${fixture.prefix}text`;
    await client.set(text, 'not a list');
    const batch = new PipelineBatch(client);
    const results = await Promise.allSettled([
      batch.add((pipe) => pipe.rpush(list, 'a')),
      batch.add((pipe) => pipe.set(`${fixture.prefix}x`, '1').rpush(text, 'b')),
      batch.add((pipe) => pipe.rpush(list, 'c')),
    ]);
    expect(results.map((r) => r.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).to.match(/WRONGTYPE/);
    expect(await client.lrange(list, 0, -1)).to.deep.equal(['a', 'c']);
  });

  it('flush() sends the open batch at once, ahead of what the client sends next', async () => {
    const client = fixture.connect();
    const key = `${fixture.prefix}flushed`;
    const batch = new PipelineBatch(client);
    const added = batch.add((pipe) => pipe.set(key, 'written'));
    batch.flush();
    // sent in this turn, before the GET below
    expect(await client.get(key)).to.equal('written');
    await added;
    batch.flush(); // nothing open: nothing happens
  });
});
