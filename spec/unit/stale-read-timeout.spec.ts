// The read timeout across a reconnect: ioredis 5 arms one socketTimeout timer per client and clears it
// only when a reply arrives on the socket it was armed for (ioredis issue 2147). When that socket closes
// with a reply owed (Redis went away), the timer outlived it and, at the old deadline, cut the connection
// made since, healthy and answering: one more reconnect after every outage shorter than the read timeout,
// and whatever pop was in flight on it reported unconfirmed. A fake server here plays Redis, so the
// interleaving is exact: it takes the first command after the ready check and closes without answering.
import { expect } from 'chai';
import { createServer, type Server, type Socket } from 'net';
import { RedisQueue } from '../../lib/RedisQueue';

const READ_TIMEOUT = 2;

// The commands in `buffer` (RESP arrays of bulk strings), lower-case names, and the bytes left unparsed.
function commands(buffer: Buffer): { names: string[]; rest: Buffer } {
  const names: string[] = [];
  let at = 0;
  for (;;) {
    const header = /^\*(\d+)\r\n/.exec(buffer.subarray(at).toString('latin1'));
    if (!header) break;
    let p = at + header[0].length;
    const args: string[] = [];
    for (let i = 0; i < Number(header[1]); i++) {
      const len = /^\$(\d+)\r\n/.exec(buffer.subarray(p).toString('latin1'));
      if (!len || buffer.length < p + len[0].length + Number(len[1]) + 2) return { names, rest: buffer.subarray(at) };
      p += len[0].length;
      args.push(buffer.subarray(p, p + Number(len[1])).toString());
      p += Number(len[1]) + 2;
    }
    names.push(args[0].toLowerCase());
    at = p;
  }
  return { names, rest: buffer.subarray(at) };
}

describe('the Redis read timeout across a reconnect', function () {
  let server: Server;
  const sockets = new Set<Socket>();
  after(() => {
    for (const s of sockets) s.destroy();
    server?.close();
  });

  it('does not cut the connection made after one that closed with a reply owed', async function () {
    this.timeout(15000);
    let connections = 0;
    server = createServer((socket) => {
      sockets.add(socket);
      const connection = ++connections;
      let unread = Buffer.alloc(0);
      socket.on('data', (data) => {
        const { names, rest } = commands(Buffer.concat([unread, data]));
        unread = rest;
        for (const name of names) {
          if (name === 'info') socket.write('$11\r\nloading:0\r\n\r\n');
          else if (name === 'quit') socket.end('+OK\r\n');
          else if (connection === 1) return void setTimeout(() => socket.destroy(), 20);
          else socket.write(':0\r\n');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const queue = new RedisQueue({ connection: { host: '127.0.0.1', port }, readTimeout: READ_TIMEOUT });
    try {
      // Its LLEN is taken by the first connection, which closes; ioredis sends it again on the second.
      expect(await queue.pendingSize('default')).to.equal(0);
      expect(connections).to.equal(2);
      // Past the first connection's deadline, the second one, which answered, is still the one in use.
      await new Promise((resolve) => setTimeout(resolve, READ_TIMEOUT * 1000 + 500));
      expect(await queue.pendingSize('default')).to.equal(0);
      expect(connections, 'connections opened').to.equal(2);
    } finally {
      await queue.close();
    }
  });
});
