// The read timeout across a reconnect: ioredis 5 arms one socketTimeout timer per client and clears it
// only when a reply arrives on the socket it was armed for (ioredis issue 2147; 6.0.0 clears it when the
// socket closes). When that socket closes with a reply owed (Redis went away), the timer outlived it and,
// at the old deadline, cut the connection made since, healthy and answering: one more reconnect after
// every outage shorter than the read timeout, and whatever pop was in flight on it reported unconfirmed. A fake server plays Redis, so the
// interleaving is exact: it takes the first command after the ready check and closes without answering.
import { expect } from 'chai';
import { RedisQueue } from '../../lib/RedisQueue';
import { answerAsRedis, fakeRedis, type FakeRedis } from '../support/fakeRedis';

const READ_TIMEOUT = 2;

describe('the Redis read timeout across a reconnect', function () {
  let server: FakeRedis | undefined;
  after(() => server?.close());

  it('does not cut the connection made after one that closed with a reply owed', async function () {
    this.timeout(15000);
    server = await fakeRedis((connection, name, socket) => {
      if (connection === 1 && name !== 'info') setTimeout(() => socket.destroy(), 20);
      else answerAsRedis(name, socket);
    });
    const queue = new RedisQueue({ connection: { host: '127.0.0.1', port: server.port }, readTimeout: READ_TIMEOUT });
    try {
      // Its LLEN is taken by the first connection, which closes; ioredis sends it again on the second.
      expect(await queue.pendingSize('default')).to.equal(0);
      expect(server.connections).to.equal(2);
      // Past the first connection's deadline, the second one, which answered, is still the one in use.
      await new Promise((resolve) => setTimeout(resolve, READ_TIMEOUT * 1000 + 500));
      expect(await queue.pendingSize('default')).to.equal(0);
      expect(server.connections, 'connections opened').to.equal(2);
    } finally {
      await queue.close();
    }
  });
});
