// `$this->fail()` without an exception, against real Laravel 8.83, 12.67 and 13.26: Laravel's worker calls
// the job's failed() with null and records a ManuallyFailedException; larq's worker does the same for a
// Node handler's ctx.fail(), whose failed hook gets null.
import { expect } from 'chai';
import { join } from 'path';
import { createWorker } from '../../lib/createWorker';
import { FileFailedJobProvider } from '../../lib/failed/FileFailedJobProvider';
import { Handlers } from '../../lib/handlers/Handlers';
import { RedisQueue } from '../../lib/RedisQueue';
import { LARAVEL_LINES, requirePhp, runLaravelWorkerDetailed, type PhpConnection } from '../support/php';
import { dispatch13, masked, php13Env } from '../support/php13';
import { randomPrefix } from '../support/redis';
import { useRedisQueue } from '../support/useRedisQueue';
import { useTempDir } from '../support/useTempDir';

for (const line of LARAVEL_LINES)
  describe(`interop: fail() without an exception (Laravel ${line})`, function () {
    this.timeout(60000);
    const redis = useRedisQueue();
    const temp = useTempDir('manual-fail', 'all');

    before(async function () {
      requirePhp(this, line);
    });

    it("gives failed() null and records ManuallyFailedException, as Laravel's worker does", async function () {
      const conn = (prefix: string): PhpConnection => ({ laravel: line, port: redis.port, prefix, env: php13Env() });
      const [laravel, larq] = [randomPrefix(), randomPrefix()];
      for (const prefix of [laravel, larq])
        expect((await dispatch13('manual-fail', ['default'], conn(prefix))).ids).to.have.length(1);

      const php = await runLaravelWorkerDetailed({ ...conn(laravel), queue: 'default' });
      const hook = php.records.find((r) => r.hook === 'failed')!;
      expect(hook, php.stderr).to.not.equal(undefined);
      expect(hook.exception).to.equal(undefined); // failed(null)
      expect(php.failed.map((f) => f.exceptionClass)).to.deep.equal(['Illuminate\\Queue\\ManuallyFailedException']);

      const queue = new RedisQueue({
        connection: { port: redis.port, host: '127.0.0.1' },
        prefix: larq,
        laravel: line,
      });
      const failed = new FileFailedJobProvider(join(temp.path, `${larq}failed.json`));
      const hooked: unknown[] = [];
      try {
        const handlers = new Handlers().object('App\\Jobs\\ManualFailJob', (_c, ctx) => ctx.fail(), {
          failed: (error) => void hooked.push(error),
        });
        await createWorker(queue, handlers, { sleep: 0, stopWhenEmpty: true, memory: 4096 }, { failed }).daemon(
          'default',
        );
      } finally {
        await queue.close();
      }
      expect(hooked).to.deep.equal([null]);
      const records = await failed.all();
      expect(records.map((r) => r.exception.split(' in ')[0])).to.deep.equal([
        'Illuminate\\Queue\\ManuallyFailedException',
      ]);
      expect(masked(records[0].payload)).to.equal(masked(php.failed[0].payload));
    });
  });
