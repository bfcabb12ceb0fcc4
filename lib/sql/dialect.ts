// What differs between the dialects in the text of a statement, as pure functions of the dialect: the
// stores write portable SQL and ask here for quoting, placeholders and the few statements that differ.
import type { SqlDialect } from './SqlClient';

/** Quote a table or column name; "schema.table" is quoted part by part, the quote doubled inside. */
export function quoteIdentifier(dialect: SqlDialect, identifier: string): string {
  const q = dialect === 'mysql' ? '`' : '"';
  return identifier
    .split('.')
    .map((part) => q + part.split(q).join(q + q) + q)
    .join('.');
}

/** The placeholder of the n-th parameter (1-based): `$n` on pgsql, `?` elsewhere. */
export function placeholder(dialect: SqlDialect, n: number): string {
  return dialect === 'pgsql' ? `$${n}` : '?';
}

/** An index name the way Laravel's schema builder makes it: table, column and type, lowercase, with underscores. */
export function indexName(table: string, column: string, type: string): string {
  return `${table}_${column}_${type}`.toLowerCase().replace(/[-.]/g, '_');
}

/** A DELETE of at most `limit` rows of `table` matching `where` (with its placeholders), keyed by `idColumn`. */
export function deleteChunkSql(
  dialect: SqlDialect,
  table: string,
  where: string,
  limit: number,
  idColumn: string,
): string {
  const t = quoteIdentifier(dialect, table);
  const id = quoteIdentifier(dialect, idColumn);
  // MySQL has DELETE ... LIMIT but refuses LIMIT inside an IN subquery; SQLite lacks DELETE ... LIMIT in
  // most builds and PostgreSQL altogether, so they take the keyed subquery.
  if (dialect === 'mysql') return `DELETE FROM ${t} WHERE ${where} ORDER BY ${id} LIMIT ${limit}`;
  return `DELETE FROM ${t} WHERE ${id} IN (SELECT ${id} FROM ${t} WHERE ${where} LIMIT ${limit})`;
}

/** Whether `err` is a duplicate-key error (primary key or unique index) from any of the three drivers. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: unknown; errno?: unknown } | null;
  if (typeof e !== 'object' || e === null) return false;
  const code = String(e.code ?? '');
  return (
    code.startsWith('SQLITE_CONSTRAINT_PRIMARYKEY') ||
    code.startsWith('SQLITE_CONSTRAINT_UNIQUE') ||
    code === 'ER_DUP_ENTRY' ||
    e.errno === 1062 ||
    code === '23505'
  );
}
