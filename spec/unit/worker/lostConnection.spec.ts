// A Redis outage is ridden out, not a reason to stop the worker: what ioredis and larq raise while the
// client keeps reconnecting is not a lost connection; a client that stopped reconnecting still is.
import { expect } from 'chai';
import { LarqError, RedisUnavailableError, UnconfirmedWriteError } from '../../../lib/errors';
import { causedByLostConnection } from '../../../lib/worker/lostConnection';

describe('causedByLostConnection and Redis outages', () => {
  it("is false for ioredis' max-retries error and larq's own outage errors", () => {
    // ioredis' MaxRetriesPerRequestError, as it words it
    const maxRetries = Object.assign(
      new Error(
        'Reached the max retries per request limit (which is 20). Refer to "maxRetriesPerRequest" option for details.',
      ),
      { name: 'MaxRetriesPerRequestError' },
    );
    expect(causedByLostConnection(maxRetries)).to.equal(false);
    expect(
      causedByLostConnection(
        new UnconfirmedWriteError('the push to queues:default', { cause: new Error('Connection is closed.') }),
      ),
    ).to.equal(false);
    expect(causedByLostConnection(new RedisUnavailableError(1, 'the pop from queues:default'))).to.equal(false);
  });

  it("is false for ioredis' Cluster giving up on one command while a slot's primary fails over", () => {
    // ioredis' Cluster, after maxRedirections tries against a primary that is gone, as it words it
    expect(
      causedByLostConnection(new Error('Too many Cluster redirections. Last error: Error: Connection is closed.')),
    ).to.equal(false);
    expect(
      causedByLostConnection(
        new Error('Too many Cluster redirections. Last error: ReplyError: CLUSTERDOWN The cluster is down'),
      ),
    ).to.equal(false);
    // as popMany reports a failed migration of its batch
    expect(
      causedByLostConnection(
        new LarqError(
          'queue "default": migration failed: Too many Cluster redirections. Last error: Error: Connection is closed.',
        ),
      ),
    ).to.equal(false);
  });

  it('is false for READONLY: a connection left on a demoted primary reconnects (reconnectOnReadOnly), the worker goes on', () => {
    // Laravel 12.38+ counts READONLY as a lost connection and stops the worker for its supervisor to restart;
    // larq's clients reconnect to the new primary by themselves instead.
    expect(causedByLostConnection(new Error("READONLY You can't write against a read only replica."))).to.equal(false);
  });

  it('is still true for a client that stopped reconnecting', () => {
    expect(causedByLostConnection(new Error('Connection is closed.'))).to.equal(true);
  });
});
