// A TCP server that plays Redis just enough for a client to connect and be answered, so a spec can
// place a close or a reset exactly where it wants it: `answer` sees each command of each connection (the
// connection's number, from 1; the command's lower-case name) and replies on the socket, or does not.
import { createServer, type Server, type Socket } from 'net';

export interface FakeRedis {
  readonly port: number;
  /** How many connections the server has accepted. */
  readonly connections: number;
  close(): void;
}

/** Replies as a loaded, empty Redis would: INFO (the ready check), QUIT, and 0 to anything else. */
export function answerAsRedis(name: string, socket: Socket): void {
  if (name === 'info') socket.write('$11\r\nloading:0\r\n\r\n');
  else if (name === 'quit') socket.end('+OK\r\n');
  else socket.write(':0\r\n');
}

export async function fakeRedis(
  answer: (connection: number, name: string, socket: Socket) => void,
): Promise<FakeRedis> {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    const connection = ++connections;
    let unread: Buffer = Buffer.alloc(0);
    socket.on('data', (data) => {
      const { names, rest } = commands(Buffer.concat([unread, data]));
      unread = rest;
      for (const name of names) if (!socket.destroyed) answer(connection, name, socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    get connections() {
      return connections;
    },
    close() {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

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
