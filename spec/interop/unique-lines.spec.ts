// Unique jobs against real Laravel 8.83, 12.67 and 13.26: a ShouldBeUnique chain step goes through the
// dispatch() helper's lock (taken, or the step skipped while another copy holds it); lock keys of a class
// with displayName() (12.41+ by name, 12.54+ as xxh128); and the worker's release, which from 13.24
// compares the owner the job carries (uniqueLockOwner) and leaves a lock another dispatch took alone.
import { expect } from 'chai';
import { createCacheStore } from '../../lib/cache';
import { RedisCacheStore } from '../../lib/cache/RedisCacheStore';
import { createWorker } from '../../lib/createWorker';
import { chainHooks } from '../../lib/features/chain';
import { dispatchUnique } from '../../lib/features/unique';
import { uniqueJobs, uniqueLockName, type UniqueJobSpec } from '../../lib/features/unique';
import { Handlers } from '../../lib/handlers/Handlers';
import { laravelJobTraits, phpClass } from '../../lib/php/builder';
import { unserialize } from '../../lib/php/unserialize';
import { PhpObject } from '../../lib/php/values';
import { RedisQueue } from '../../lib/RedisQueue';
import { LARAVEL_LINES, laravelMajor, requirePhp, runLaravelWorker, type PhpConnection } from '../support/php';
import { dispatch13, php13Env } from '../support/php13';
import { randomPrefix } from '../support/redis';
import { useRedisQueue } from '../support/useRedisQueue';

const CACHE_PREFIX = 'larq_cache_';
const UNIQUE_STEP = 'App\\Jobs\\UniqueStep';
const NAMED = 'App\\Jobs\\NamedUniqueJob';
const named: UniqueJobSpec = { displayName: (c) => `Nightly report ${String(c.get('uniqueId'))}` };

for (const line of LARAVEL_LINES)
  describe(`interop: unique jobs (Laravel ${line})`, function () {
    this.timeout(60000);
    const redis = useRedisQueue();
    const open: { close(): Promise<void> }[] = [];

    before(async function () {
      requirePhp(this, line);
    });
    afterEach(async () => Promise.all(open.splice(0).map((o) => o.close())));

    function sides(prefix = randomPrefix()) {
      const cache = new RedisCacheStore({
        connection: { port: redis.port, host: '127.0.0.1' },
        database: 0,
        prefix,
        cachePrefix: CACHE_PREFIX,
        laravel: laravelMajor(line),
      });
      const queue = new RedisQueue({ connection: { port: redis.port, host: '127.0.0.1' }, prefix, laravel: line });
      open.push(queue, cache);
      const php: PhpConnection = {
        laravel: line,
        port: redis.port,
        prefix,
        cachePrefix: CACHE_PREFIX,
        env: php13Env(),
      };
      const unique = { classes: { [UNIQUE_STEP]: {}, [NAMED]: named }, cache, options: { laravel: line } };
      const larqWorker = (queueName: string) => {
        const handlers = new Handlers({
          hooks: [uniqueJobs(unique.classes, cache, unique.options), chainHooks(queue, { unique })],
        })
          .object('App\\Jobs\\ChainStep', () => undefined)
          .object(UNIQUE_STEP, () => undefined)
          .object(NAMED, () => undefined);
        return createWorker(queue, handlers, { sleep: 0, stopWhenEmpty: true, memory: 4096 }).daemon(queueName);
      };
      return { prefix, cache, queue, php, larqWorker };
    }

    const stepKey = (id: string) =>
      laravelMajor(line) === 8 ? `laravel_unique_job:${UNIQUE_STEP}${id}` : `laravel_unique_job:${UNIQUE_STEP}:${id}`;
    const commandsIn = async (prefix: string, queue: string) =>
      (await redis.client.lrange(`${prefix}queues:${queue}`, 0, -1)).map(
        (raw) => unserialize(JSON.parse(raw).data.command) as PhpObject,
      );

    it("skips a unique chain step while another copy holds its lock, as Laravel's dispatch() does", async function () {
      // the same chain, its first step run by Laravel's worker on one side and by larq on the other
      const laravel = sides();
      const larq = sides();
      for (const side of [laravel, larq]) {
        expect((await dispatch13('unique-step', ['c1', 'php'], side.php)).ids).to.have.length(1);
        expect((await dispatch13('chain-unique', ['c1'], side.php)).ids).to.have.length(1);
      }
      const owner = await larq.cache.lock(stepKey('c1')).currentOwner();
      expect(owner).to.be.a('string');
      await runLaravelWorker({ ...laravel.php, queue: 'node' });
      await larq.larqWorker('node');
      expect(await commandsIn(laravel.prefix, 'php')).to.have.length(1);
      expect(await commandsIn(larq.prefix, 'php')).to.have.length(1);
      expect(await larq.cache.lock(stepKey('c1')).currentOwner()).to.equal(owner);
    });

    it('takes the free lock of a unique chain step (13.24+: writing its owner into the step); Laravel releases it after the run', async function () {
      const larq = sides();
      await dispatch13('chain-unique', ['c2'], larq.php);
      await larq.larqWorker('node');
      const [step] = await commandsIn(larq.prefix, 'php');
      expect(step.className).to.equal(UNIQUE_STEP);
      const owner = await larq.cache.lock(stepKey('c2')).currentOwner();
      expect(owner).to.be.a('string');
      if (line === '13.26') expect(step.get('uniqueLockOwner')).to.equal(owner);
      else expect(step.get('uniqueLockOwner')).to.equal(undefined);
      // while the step waits, Laravel's dispatch() of the same job is skipped
      expect((await dispatch13('unique-step', ['c2', 'php'], larq.php)).ids).to.deep.equal([]);
      const records = await runLaravelWorker({ ...larq.php, queue: 'php' });
      expect(records.map((r) => r.class)).to.deep.equal([UNIQUE_STEP]);
      expect(await larq.cache.lock(stepKey('c2')).currentOwner()).to.equal(null);
    });

    it('names the lock of a class with displayName() as Laravel does (12.41+ by name, 12.54+ xxh128) and releases it after the run', async function () {
      const larq = sides();
      const dispatched = await dispatch13('named-unique', ['n1', 'node'], larq.php);
      expect(dispatched.ids).to.have.length(1);
      const name = await uniqueLockName(
        new PhpObject(NAMED, [{ name: 'uniqueId', visibility: 'public', value: 'n1' }]),
        named,
        { laravel: line },
      );
      if (dispatched.keys[0] !== null) expect(name).to.equal(dispatched.keys[0]);
      expect(await larq.cache.lock(name).currentOwner()).to.be.a('string');
      await larq.larqWorker('node');
      expect(await larq.cache.lock(name).currentOwner()).to.equal(null);
      expect((await dispatch13('named-unique', ['n1', 'node'], larq.php)).ids).to.have.length(1);
    });

    it("releases a lock as Laravel's worker does when another dispatch took it since (13.24+: by owner, leaving it; before: force)", async function () {
      const laravel = sides();
      const larq = sides();
      for (const side of [laravel, larq]) {
        await dispatch13('unique-step', ['o1', 'node'], side.php);
        await side.cache.lock(stepKey('o1')).forceRelease(); // the first lock expired (uniqueFor)...
        expect((await dispatch13('unique-step', ['o1', 'php'], side.php)).ids).to.have.length(1); // ...and another copy took it
      }
      const second = await larq.cache.lock(stepKey('o1')).currentOwner();
      await runLaravelWorker({ ...laravel.php, queue: 'node' });
      await larq.larqWorker('node');
      const left = await laravel.cache.lock(stepKey('o1')).currentOwner();
      expect(left === null ? null : 'held', 'Laravel').to.equal(line === '13.26' ? 'held' : null);
      expect(await larq.cache.lock(stepKey('o1')).currentOwner()).to.equal(line === '13.26' ? second : null);
    });

    it("a Node dispatchUnique with the cache store's defaults holds the lock where Laravel's dispatch() looks", async function () {
      // the skeleton's cache store: values on the `cache` connection (db 1), locks on `default` (db 0),
      // where the harness's dispatch() takes them
      const prefix = randomPrefix();
      const cache = createCacheStore({
        driver: 'redis',
        connection: { port: redis.port, host: '127.0.0.1' },
        prefix,
        cachePrefix: CACHE_PREFIX,
        laravel: laravelMajor(line),
      });
      const queue = new RedisQueue({ connection: { port: redis.port, host: '127.0.0.1' }, prefix, laravel: line });
      open.push(queue, cache);
      const UniqueStep = phpClass(
        UNIQUE_STEP,
        { uniqueId: 'public' },
        { traits: laravelJobTraits(laravelMajor(line)), serializesModels: true },
      );
      const job = UniqueStep.make({ uniqueId: 'd1', queue: 'php' });
      expect(await dispatchUnique(queue, cache, job, {}, { laravel: line })).to.be.a('string');
      const php: PhpConnection = {
        laravel: line,
        port: redis.port,
        prefix,
        cachePrefix: CACHE_PREFIX,
        env: php13Env(),
      };
      expect(
        (await dispatch13('unique-step', ['d1', 'php'], php)).ids,
        "PHP's dispatch of the same unique job",
      ).to.have.length(0);
      expect(await commandsIn(prefix, 'php')).to.have.length(1);
    });
  });
