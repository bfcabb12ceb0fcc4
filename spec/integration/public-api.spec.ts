// A user's first hour with larq, importing only from the package entry: declare a PHP job class,
// dispatch it, reserve it as a worker would, read it, acknowledge it.
import { expect } from 'chai';
import * as larq from '../../lib/index';
import { randomPrefix, requireRedis } from '../support/redis';

describe('the public API (package entry only)', function () {
  let port: number;
  before(async function () {
    port = await requireRedis(this);
  });

  it('dispatches a job for PHP and reads one back as a worker would', async function () {
    const SendInvoice = larq.phpClass(
      'App\\Jobs\\SendInvoice',
      { invoiceId: 'public', customer: 'protected', tries: { visibility: 'public', default: 3 } },
      { traits: larq.laravelJobTraits(13), serializesModels: true },
    );
    const queue = new larq.RedisQueue({ connection: { port }, prefix: randomPrefix(), laravel: 13 });
    try {
      const id = await queue.push(
        SendInvoice.make({ invoiceId: 1042, customer: larq.php.model('App\\Models\\Customer', 7, {}, 13) }),
        'billing',
      );
      expect(id).to.match(/^[A-Za-z0-9]{32}$/);
      expect(await queue.size('billing')).to.equal(1);

      const job = await queue.pop('billing');
      expect(job).to.be.instanceOf(larq.RedisJob);
      expect(job!.payload().displayName).to.equal('App\\Jobs\\SendInvoice');
      expect(job!.maxTries()).to.equal(3);
      const view = larq.toPlain(job!.command()) as Record<string, unknown>;
      expect(larq.phpClassOf(view)).to.equal('App\\Jobs\\SendInvoice');
      expect(view.invoiceId).to.equal(1042);
      expect((view.customer as Record<string, unknown>).id).to.equal(7);
      await job!.delete();
      expect(await queue.size('billing')).to.equal(0);
    } finally {
      await queue.close();
    }
  });

  it('rejects a bad option with a typed error that names it', function () {
    expect(() => new larq.RedisQueue({ retryAfter: -5 })).to.throw(larq.InvalidOptionError, /^retryAfter:/);
  });
});
