// The `laravel` option against real Laravel 8.83, 12.67 and 13.26: a job larq pushes for the line's
// release is the payload Laravel pushes for the same job, byte for byte but for uuid, id and createdAt
// (field set and order: 12.11 createdAt/delay, 12.51 data.batchId, 13.0 deleteWhenMissingModels).
import { expect } from 'chai';
import { laravelJobTraits, phpClass } from '../../lib/php/builder';
import { RedisQueue } from '../../lib/RedisQueue';
import { LARAVEL_LINES, laravelMajor, phpDispatch, requirePhp } from '../support/php';
import { randomPrefix } from '../support/redis';
import { masked } from '../support/php13';
import { useRedisQueue } from '../support/useRedisQueue';

for (const line of LARAVEL_LINES)
  describe(`interop: payloads for laravel: '${line}'`, function () {
    this.timeout(30000);
    const redis = useRedisQueue();
    const ChainStep = phpClass(
      'App\\Jobs\\ChainStep',
      { step: 'public' },
      { traits: laravelJobTraits(laravelMajor(line)), serializesModels: true },
    );

    before(async function () {
      requirePhp(this, line);
    });

    it('pushes what Laravel pushes for the same job', async function () {
      const [php, node] = [randomPrefix(), randomPrefix()];
      await phpDispatch('on-queue', { laravel: line, port: redis.port, prefix: php, args: ['high'] });
      const queue = new RedisQueue({
        connection: { port: redis.port, host: '127.0.0.1' },
        prefix: node,
        laravel: line,
      });
      try {
        await queue.push(ChainStep.make({ step: 1, queue: 'high' }), 'high');
      } finally {
        await queue.close();
      }
      const [fromPhp] = await redis.client.lrange(`${php}queues:high`, 0, -1);
      const [fromNode] = await redis.client.lrange(`${node}queues:high`, 0, -1);
      expect(masked(fromNode)).to.equal(masked(fromPhp));
    });
  });
