// A Redis outage is ridden out, not a reason to stop the worker: what ioredis and larq raise while the
// client keeps reconnecting is not a lost connection; a client that stopped reconnecting still is.
import { expect } from 'chai';
import { RedisUnavailableError, UnconfirmedWriteError } from '../../../lib/errors';
import { causedByLostConnection } from '../../../lib/worker/lostConnection';

describe('causedByLostConnection and Redis outages', () => {
  it("is false for ioredis' max-retries error and larq's own outage errors", () => {
    // ioredis' MaxRetriesPerRequestError, as it words it
    const maxRetries = Object.assign(new Error('Reached the max retries per request limit (which is 20). Refer to "maxRetriesPerRequest" option for details.'), { name: 'MaxRetriesPerRequestError' });
    expect(causedByLostConnection(maxRetries)).to.equal(false);
    expect(causedByLostConnection(new UnconfirmedWriteError('the push to queues:default', { cause: new Error('Connection is closed.') }))).to.equal(false);
    expect(causedByLostConnection(new RedisUnavailableError(1, 'the pop from queues:default'))).to.equal(false);
  });

  it('is still true for a client that stopped reconnecting', () => {
    expect(causedByLostConnection(new Error('Connection is closed.'))).to.equal(true);
  });
});
