// A job whose payload carries a job middleware larq cannot run is never run without it: it is failed
// with a reason naming the middleware class, or released for a PHP worker, as the unknown-jobs policy
// says; only a class the user lists in `middleware.ignore` is left out.
import { expect } from 'chai';
import { join } from 'path';
import { createWorker } from '../../lib/createWorker';
import { FileFailedJobProvider } from '../../lib/failed/FileFailedJobProvider';
import { Handlers } from '../../lib/handlers/Handlers';
import { phpClass } from '../../lib/php/builder';
import { RedisQueue } from '../../lib/RedisQueue';
import { ChainStep } from '../support/phpJobs';
import { useRedisQueue } from '../support/useRedisQueue';
import { useTempDir } from '../support/useTempDir';

const EnsureTenant = phpClass('App\\Jobs\\Middleware\\EnsureTenant', { tenant: 'public' });
const FutureLaravel = phpClass('Illuminate\\Queue\\Middleware\\SomethingNew', { key: 'public' });

describe('Job middleware larq cannot run', function () {
  this.timeout(30000);
  const redis = useRedisQueue();
  const temp = useTempDir('mw', 'all');
  let queue: RedisQueue;
  let failed: FileFailedJobProvider;
  let ran: number;

  beforeEach(() => {
    queue = redis.open({ laravel: 8, retryAfter: 90 });
    failed = new FileFailedJobProvider(join(temp.path, `${redis.prefix}failed.json`));
    ran = 0;
  });

  function handlers(options: ConstructorParameters<typeof Handlers>[0] = {}): Handlers {
    return new Handlers(options).object('App\\Jobs\\ChainStep', () => void ran++);
  }

  function run(h: Handlers) {
    return createWorker(queue, h, { sleep: 0, stopWhenEmpty: true, memory: 4096, maxJobs: 1 }, { failed }).daemon(
      'default',
    );
  }

  it("fails a job carrying the app's own middleware, naming the class, without running it", async function () {
    await queue.push(ChainStep.make({ step: 1, middleware: [EnsureTenant.make({ tenant: 7 })] }));
    await run(handlers());
    expect(ran).to.equal(0);
    const [record] = await failed.all();
    expect(record.exception).to.match(
      /^UnsupportedMiddlewareError: Job "App\\Jobs\\ChainStep" carries the job middleware App\\Jobs\\Middleware\\EnsureTenant, which larq cannot run/,
    );
    expect(await queue.size()).to.equal(0);
  });

  it('refuses a Laravel middleware class it does not implement, and a class name given as a string', async function () {
    await queue.push(ChainStep.make({ step: 1, middleware: [FutureLaravel.make({ key: 'k' })] }));
    await queue.push(ChainStep.make({ step: 2, middleware: ['App\\Jobs\\Middleware\\Audit'] }));
    const h = handlers();
    await createWorker(queue, h, { sleep: 0, stopWhenEmpty: true, memory: 4096 }, { failed }).daemon('default');
    expect(ran).to.equal(0);
    const reasons = (await failed.all()).map((r) => /carries the job middleware (\S+),/.exec(r.exception)?.[1]).sort();
    expect(reasons).to.deep.equal(['App\\Jobs\\Middleware\\Audit', 'Illuminate\\Queue\\Middleware\\SomethingNew']);
  });

  it('releases it for a PHP worker under unknownJobs: { release }, counting the attempt, without running it', async function () {
    await queue.push(ChainStep.make({ step: 1, middleware: [EnsureTenant.make({ tenant: 7 })] }));
    await run(handlers({ unknownJobs: { release: 30 } }));
    expect(ran).to.equal(0);
    expect(await failed.all()).to.deep.equal([]);
    const [delayed] = await queue.delayedJobs();
    expect(delayed.attempts).to.equal(1);
  });

  it('runs the job when the user lists the class in middleware.ignore', async function () {
    await queue.push(ChainStep.make({ step: 1, middleware: [EnsureTenant.make({ tenant: 7 })] }));
    await run(handlers({ middleware: { ignore: ['App\\Jobs\\Middleware\\EnsureTenant'] } }));
    expect(ran).to.equal(1);
    expect(await failed.all()).to.deep.equal([]);
    expect(await redis.client.keys(`${redis.prefix}*`)).to.deep.equal([]);
  });

  it('adds the classes useMiddleware() ignores (larq work --ignore-middleware) to those the module declared', async function () {
    await queue.push(
      ChainStep.make({ step: 1, middleware: [EnsureTenant.make({ tenant: 7 }), FutureLaravel.make({ key: 'k' })] }),
    );
    const h = handlers({ middleware: { ignore: ['App\\Jobs\\Middleware\\EnsureTenant'] } });
    h.useMiddleware({ ignore: ['Illuminate\\Queue\\Middleware\\SomethingNew'] });
    await run(h);
    expect(ran).to.equal(1);
    expect(await failed.all()).to.deep.equal([]);
  });

  it('runs a job whose middleware list is empty as before', async function () {
    await queue.push(ChainStep.make({ step: 1 }));
    await run(handlers());
    expect(ran).to.equal(1);
  });
});
