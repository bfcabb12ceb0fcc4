// How a driver's connection becomes a SqlClient. The drivers only say how to run a statement; here the
// dialect supplies quoting and placeholders, and transactions get a connection of their own: a
// connection checked out of a pool, or, on a single connection, a turn in the queue of everything sent
// to it, so no other statement lands between BEGIN and COMMIT.
import { placeholder, quoteIdentifier } from './dialect';
import type { SqlClient, SqlDialect, SqlRunner } from './SqlClient';

/** Where statements run: `shared` for one statement, `exclusive` for a connection held by one caller. */
export interface Sessions {
  readonly shared: SqlRunner;
  exclusive<T>(fn: (runner: SqlRunner) => Promise<T>): Promise<T>;
}

const BEGIN: Record<SqlDialect, string> = {
  // IMMEDIATE takes the write lock at once, so two writers do not both read and then fail to upgrade.
  sqlite: 'BEGIN IMMEDIATE',
  mysql: 'START TRANSACTION',
  pgsql: 'BEGIN',
};

/** A SqlClient in `dialect` over `sessions`; `close` ends what larq opened (nothing for a caller's client). */
export function sqlClient(dialect: SqlDialect, sessions: Sessions, close: () => Promise<void>): SqlClient {
  const { shared } = sessions;
  return {
    dialect,
    quote: (identifier) => quoteIdentifier(dialect, identifier),
    param: (n) => placeholder(dialect, n),
    select: (sql, params) => shared.select(sql, params),
    execute: (sql, params) => shared.execute(sql, params),
    insertGetId: (sql, params, idColumn) => shared.insertGetId(sql, params, idColumn),
    transaction: (fn) =>
      sessions.exclusive(async (tx) => {
        await tx.execute(BEGIN[dialect]);
        try {
          const result = await fn(tx);
          await tx.execute('COMMIT');
          return result;
        } catch (e) {
          // A failed COMMIT, or an error that already ended the transaction, leaves nothing to roll back.
          await tx.execute('ROLLBACK').catch(() => undefined);
          throw e;
        }
      }),
    close,
  };
}

/** One connection: statements and transactions take turns, in the order they were asked for. */
export function serialized(direct: SqlRunner): Sessions {
  let tail: Promise<unknown> = Promise.resolve();
  function exclusive<T>(fn: (runner: SqlRunner) => Promise<T>): Promise<T> {
    const result = tail.then(() => fn(direct));
    tail = result.catch(() => undefined);
    return result;
  }
  return {
    exclusive,
    shared: {
      select: (sql, params) => exclusive((r) => r.select(sql, params)),
      execute: (sql, params) => exclusive((r) => r.execute(sql, params)),
      insertGetId: (sql, params, idColumn) => exclusive((r) => r.insertGetId(sql, params, idColumn)),
    },
  };
}

/** A pool: statements go to any connection; an exclusive caller checks one out and gives it back. */
export function pooled(shared: SqlRunner, checkout: () => Promise<{ runner: SqlRunner; release(): void }>): Sessions {
  return {
    shared,
    async exclusive<T>(fn: (runner: SqlRunner) => Promise<T>): Promise<T> {
      const conn = await checkout();
      try {
        return await fn(conn.runner);
      } finally {
        conn.release();
      }
    },
  };
}
