// Chains against real Laravel 8.83, 12.67 and 13.26: the next step larq dispatches after running a step of
// a PHP chain, and a chain larq builds with dispatchChain, are byte for byte what Laravel itself writes
// (Queueable's properties in declaration order; from 9.4 SerializesModels leaves out the ones still at
// their default, so a 12/13 step carries 4 properties, not 8).
import { expect } from 'chai';
import { createWorker } from '../../lib/createWorker';
import { chainHooks, dispatchChain } from '../../lib/features/chain';
import { Handlers } from '../../lib/handlers/Handlers';
import { laravelJobTraits, phpClass } from '../../lib/php/builder';
import { RedisQueue } from '../../lib/RedisQueue';
import { LARAVEL_LINES, laravelMajor, phpDispatch, requirePhp, runLaravelWorker } from '../support/php';
import { masked } from '../support/php13';
import { randomPrefix } from '../support/redis';
import { useRedisQueue } from '../support/useRedisQueue';

const NOW = 1795276770;

for (const line of LARAVEL_LINES)
  describe(`interop: chains, step by step (Laravel ${line})`, function () {
    this.timeout(60000);
    const redis = useRedisQueue();
    const opened: RedisQueue[] = [];
    const ChainStep = phpClass(
      'App\\Jobs\\ChainStep',
      { step: 'public' },
      { traits: laravelJobTraits(laravelMajor(line)), serializesModels: true },
    );

    before(async function () {
      requirePhp(this, line);
    });
    afterEach(async () => Promise.all(opened.splice(0).map((q) => q.close())));

    function queueOf(prefix: string): RedisQueue {
      const q = new RedisQueue({ connection: { port: redis.port, host: '127.0.0.1' }, prefix, laravel: line });
      opened.push(q);
      return q;
    }

    const pending = (prefix: string) => redis.client.lrange(`${prefix}queues:default`, 0, -1);

    it('dispatches the next step of a PHP chain exactly as Laravel does', async function () {
      const [php, node] = [randomPrefix(), randomPrefix()];
      for (const prefix of [php, node])
        await phpDispatch('chain', { laravel: line, port: redis.port, prefix, now: NOW });
      await runLaravelWorker({ laravel: line, port: redis.port, prefix: php, maxJobs: 1 });
      const queue = queueOf(node);
      const handlers = new Handlers({ hooks: [chainHooks(queue)] }).object('App\\Jobs\\ChainStep', () => undefined);
      await createWorker(queue, handlers, { sleep: 0, maxJobs: 1, memory: 4096 }).daemon('default');

      const [fromPhp] = await pending(php);
      const [fromNode] = await pending(node);
      expect(JSON.parse(fromNode).data.command).to.equal(JSON.parse(fromPhp).data.command);
      expect(masked(fromNode)).to.equal(masked(fromPhp));
      expect(fromNode.length).to.equal(fromPhp.length);
    });

    it('builds a chain with dispatchChain exactly as Bus::chain(...)->onQueue(...)->dispatch() does', async function () {
      const [php, node] = [randomPrefix(), randomPrefix()];
      await phpDispatch('chain', { laravel: line, port: redis.port, prefix: php, now: NOW });
      await dispatchChain(
        queueOf(node),
        [1, 2, 3].map((step) => ChainStep.make({ step })),
        { queue: 'default' },
      );
      const [fromPhp] = await pending(php);
      const [fromNode] = await pending(node);
      expect(JSON.parse(fromNode).data.command).to.equal(JSON.parse(fromPhp).data.command);
    });
  });
