// lib/sql's dialect helpers and DDL, without a database: quoting, placeholders, the chunked DELETE,
// duplicate-key detection, and the exact statements of the failed_jobs and cache tables (the text the
// failed-job and cache stores wrote before they shared this layer).
import { expect } from 'chai';
import {
  cacheTableSql,
  deleteChunkSql,
  failedJobsTableSql,
  indexName,
  isUniqueViolation,
  placeholder,
  quoteIdentifier,
} from '../../../lib/sql';

describe('sql: dialect helpers', () => {
  it('quotes identifiers part by part, doubling the quote inside', () => {
    expect(quoteIdentifier('sqlite', 'failed_jobs')).to.equal('"failed_jobs"');
    expect(quoteIdentifier('pgsql', 'my.fail"ed`x')).to.equal('"my"."fail""ed`x"');
    expect(quoteIdentifier('mysql', 'my.fail"ed`x')).to.equal('`my`.`fail"ed``x`');
  });

  it('numbers placeholders on pgsql only', () => {
    expect([1, 2, 3].map((n) => placeholder('pgsql', n))).to.deep.equal(['$1', '$2', '$3']);
    expect([1, 2].map((n) => placeholder('mysql', n))).to.deep.equal(['?', '?']);
    expect(placeholder('sqlite', 5)).to.equal('?');
  });

  it('names indexes like Laravel and deletes a chunk the way each dialect allows', () => {
    expect(indexName('My-Table.x', 'uuid', 'unique')).to.equal('my_table_x_uuid_unique');
    expect(deleteChunkSql('mysql', 'fa.iled', '"x" < ?', 1000, 'id')).to.equal(
      'DELETE FROM `fa`.`iled` WHERE "x" < ? ORDER BY `id` LIMIT 1000',
    );
    const keyed = 'DELETE FROM "fa"."iled" WHERE "id" IN (SELECT "id" FROM "fa"."iled" WHERE "x" < ? LIMIT 1000)';
    expect(deleteChunkSql('sqlite', 'fa.iled', '"x" < ?', 1000, 'id')).to.equal(keyed);
    expect(deleteChunkSql('pgsql', 'fa.iled', '"x" < ?', 1000, 'id')).to.equal(keyed);
  });

  it('recognises duplicate keys from each driver, and nothing else', () => {
    for (const e of [
      { code: 'SQLITE_CONSTRAINT_PRIMARYKEY' },
      { code: 'SQLITE_CONSTRAINT_UNIQUE' },
      { code: 'ER_DUP_ENTRY' },
      { errno: 1062 },
      { code: '23505' },
    ]) {
      expect(isUniqueViolation(Object.assign(new Error('dup'), e)), JSON.stringify(e)).to.equal(true);
    }
    for (const e of [
      null,
      undefined,
      'ER_DUP_ENTRY',
      { code: 'SQLITE_CONSTRAINT_NOTNULL' },
      { code: '23502' },
      { errno: 1213 },
    ]) {
      expect(isUniqueViolation(e), JSON.stringify(e)).to.equal(false);
    }
  });

  it('writes the failed_jobs table of the 8.x stub, with or without uuid', () => {
    expect(failedJobsTableSql('sqlite')).to.deep.equal([
      'CREATE TABLE "failed_jobs" ("id" integer primary key autoincrement not null, "uuid" varchar not null, "connection" text not null, "queue" text not null, "payload" text not null, "exception" text not null, "failed_at" datetime not null default CURRENT_TIMESTAMP)',
      'CREATE UNIQUE INDEX "failed_jobs_uuid_unique" ON "failed_jobs" ("uuid")',
    ]);
    expect(failedJobsTableSql('mysql', 'failed_jobs', false)).to.deep.equal([
      "CREATE TABLE `failed_jobs` (`id` bigint unsigned not null auto_increment primary key, `connection` text not null, `queue` text not null, `payload` longtext not null, `exception` longtext not null, `failed_at` timestamp not null default CURRENT_TIMESTAMP) DEFAULT CHARACTER SET utf8mb4 COLLATE 'utf8mb4_unicode_ci'",
    ]);
    expect(failedJobsTableSql('mysql', 'my.fail"ed`x')[1]).to.equal(
      'ALTER TABLE `my`.`fail"ed``x` ADD UNIQUE `my_fail"ed``x_uuid_unique` (`uuid`)',
    );
    expect(failedJobsTableSql('pgsql')).to.deep.equal([
      'CREATE TABLE "failed_jobs" ("id" bigserial primary key not null, "uuid" varchar(255) not null, "connection" text not null, "queue" text not null, "payload" text not null, "exception" text not null, "failed_at" timestamp(0) without time zone not null default CURRENT_TIMESTAMP)',
      'ALTER TABLE "failed_jobs" ADD CONSTRAINT "failed_jobs_uuid_unique" UNIQUE ("uuid")',
    ]);
  });

  it("writes the cache migration's cache and cache_locks tables, if not there yet", () => {
    expect(cacheTableSql('sqlite')).to.deep.equal([
      'create table if not exists "cache" ("key" varchar not null, "value" text not null, "expiration" integer not null, primary key ("key"))',
      'create table if not exists "cache_locks" ("key" varchar not null, "owner" varchar not null, "expiration" integer not null, primary key ("key"))',
    ]);
    expect(cacheTableSql('mysql', 'c', 'l')).to.deep.equal([
      "create table if not exists `c` (`key` varchar(255) not null, `value` mediumtext not null, `expiration` int not null, primary key (`key`)) default character set utf8mb4 collate 'utf8mb4_unicode_ci'",
      "create table if not exists `l` (`key` varchar(255) not null, `owner` varchar(255) not null, `expiration` int not null, primary key (`key`)) default character set utf8mb4 collate 'utf8mb4_unicode_ci'",
    ]);
    expect(cacheTableSql('pgsql')).to.deep.equal([
      'create table if not exists "cache" ("key" varchar(255) not null, "value" text not null, "expiration" integer not null, primary key ("key"))',
      'create table if not exists "cache_locks" ("key" varchar(255) not null, "owner" varchar(255) not null, "expiration" integer not null, primary key ("key"))',
    ]);
  });
});
