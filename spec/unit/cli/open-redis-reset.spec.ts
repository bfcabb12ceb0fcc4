// larq work opening its connections while Redis resets one of them (a CLIENT KILL lands as the socket is
// opened: the client reads ECONNRESET, or writes into a closed socket, EPIPE): the connection is opened
// again, as one closed with no socket error is, instead of `larq work` exiting 1 at start. A server that
// refuses the connection is still reported at once. A fake server plays Redis to place the reset exactly.
import { expect } from 'chai';
import { openRedis, Resources } from '../../../lib/cli/commands/shared';
import { answerAsRedis, fakeRedis, type FakeRedis } from '../../support/fakeRedis';

describe('larq opening a Redis connection that the server resets', function () {
  let server: FakeRedis | undefined;
  const io = { out: () => undefined, err: () => undefined };
  afterEach(() => server?.close());

  it('opens it again when the first try is reset during the ready check', async function () {
    server = await fakeRedis((connection, name, socket) => {
      if (connection === 1) socket.resetAndDestroy();
      else answerAsRedis(name, socket);
    });
    const resources = new Resources();
    try {
      const client = await openRedis(`redis://127.0.0.1:${server.port}`, resources, io, { persistent: true });
      expect(await client.llen('queues:default')).to.equal(0);
      expect(server.connections).to.equal(2);
    } finally {
      await resources.close();
    }
  });

  it('gives up after three resets in a row', async function () {
    server = await fakeRedis((_connection, _name, socket) => void socket.resetAndDestroy());
    const resources = new Resources();
    try {
      await openRedis(`redis://127.0.0.1:${server.port}`, resources, io, { persistent: true }).then(
        () => expect.fail('connected'),
        (e: Error) => expect(e.message).to.match(/^cannot reach Redis at .*ECONNRESET/),
      );
      expect(server.connections).to.equal(3);
    } finally {
      await resources.close();
    }
  });
});
