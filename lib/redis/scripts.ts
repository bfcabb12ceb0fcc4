// The queue's Lua scripts: read from disk once (lib/redis/lua, copied to dist/redis/lua by the build) and
// called through typed functions that always pass the declared number of KEYS and ARGV. A script may be
// built from others (`parts`): their text, unchanged, is put in front of its own file as Lua functions of
// (KEYS, ARGV), so what it runs of them is exactly what they run alone (the worker's pop, workerPop, runs
// the migrations and popBatch so). Every script is sent one way: EVALSHA, then EVAL with its text when
// Redis answers NOSCRIPT (it ran nothing). Those whose replay changes nothing (size, migrations, clear,
// extendReservation, releaseLock) are ioredis defined commands, which ioredis may resend after a
// reconnect. The writes that must never run twice (push, later, pop, workerPop, release) are sent the
// same way wrapped in an AtMostOnceCommand, which ioredis never replays.
import { createHash } from 'crypto';
import { readFileSync } from 'fs';
import { join } from 'path';
import type { Cluster, ChainableCommander, Redis } from 'ioredis';
import { LarqError } from '../errors';
import type { QueueKeys } from './keys';
import { AtMostOnceCommand } from './AtMostOnceCommand';

/** One script: its file, the ioredis command name it is registered under, and its KEYS/ARGV counts. */
export interface ScriptSpec {
  readonly file: string;
  readonly command: string;
  readonly keys: number;
  readonly args: number;
  /** Scripts whose text this one runs as functions of its own, named after them. */
  readonly parts?: readonly string[];
  /** It takes any number of ARGV after its `args` declared ones (a list, documented in its header). */
  readonly rest?: true;
  /** Only ever run as a part of that script, never sent on its own. */
  readonly partOf?: string;
}

/** Every script larq runs (the queue's, the cache lock's owner-checked release, Horizon's metrics), by name. The key count is also in the file name (checked by a spec). */
export const SCRIPTS = Object.freeze({
  size: { file: 'size-3.lua', command: 'larqSize', keys: 3, args: 0 },
  push: { file: 'push-2.lua', command: 'larqPush', keys: 2, args: 1 },
  later: { file: 'later-1.lua', command: 'larqLater', keys: 1, args: 2 },
  pop: { file: 'pop-4.lua', command: 'larqPop', keys: 4, args: 1 },
  popBatch: { file: 'popBatch-4.lua', command: 'larqPopBatch', keys: 4, args: 2, partOf: 'workerPop' },
  workerPop: {
    file: 'workerPop-5.lua',
    command: 'larqWorkerPop',
    keys: 5,
    args: 5,
    parts: ['migrateExpiredJobs', 'popBatch'],
    rest: true,
  },
  release: { file: 'release-2.lua', command: 'larqRelease', keys: 2, args: 2 },
  migrateExpiredJobs: { file: 'migrateExpiredJobs-3.lua', command: 'larqMigrateExpiredJobs', keys: 3, args: 2 },
  clear: { file: 'clear-4.lua', command: 'larqClear', keys: 4, args: 0 },
  extendReservation: { file: 'extendReservation-1.lua', command: 'larqExtendReservation', keys: 1, args: 2 },
  releaseLock: { file: 'releaseLock-1.lua', command: 'larqReleaseLock', keys: 1, args: 1 },
  updateMetrics: { file: 'updateMetrics-2.lua', command: 'larqUpdateMetrics', keys: 2, args: 1 },
  durationLimiter: { file: 'durationLimiter-1.lua', command: 'larqDurationLimiter', keys: 1, args: 4 },
  durationLimiterTooManyAttempts: {
    file: 'durationLimiterTooManyAttempts-1.lua',
    command: 'larqDurationLimiterTooManyAttempts',
    keys: 1,
    args: 4,
  },
} satisfies Record<string, ScriptSpec>);

/** A script's name in {@link SCRIPTS}. */
export type ScriptName = keyof typeof SCRIPTS;

/** The directory holding the .lua files: next to this module, in source and in the build alike. */
export const LUA_DIR = join(__dirname, 'lua');

// Every script's text and SHA1, read from disk once, when this module is loaded.
const FILES: ReadonlyMap<ScriptName, string> = new Map(
  (Object.keys(SCRIPTS) as ScriptName[]).map((n) => [n, readFileSync(join(LUA_DIR, SCRIPTS[n].file), 'utf8')]),
);
const SOURCES: ReadonlyMap<ScriptName, string> = new Map(
  (Object.keys(SCRIPTS) as ScriptName[]).map((n) => [n, composed(n)]),
);

// A script's file, behind the functions made of its parts' files. A part's `KEYS` and `ARGV` are the
// function's parameters, so its text runs unchanged on the keys and arguments the script hands it.
function composed(name: ScriptName): string {
  const spec: ScriptSpec = SCRIPTS[name];
  const parts = (spec.parts ?? []).map(
    (part) => `local function ${part}(KEYS, ARGV)\n${FILES.get(part as ScriptName) as string}end\n\n`,
  );
  return parts.join('') + (FILES.get(name) as string);
}
const SHAS: ReadonlyMap<ScriptName, string> = new Map([...SOURCES].map(([n, source]) => [n, scriptSha(source)]));

/** The SHA1 Redis files a script under (what EVALSHA names it by). */
export function scriptSha(source: string): string {
  return createHash('sha1').update(source).digest('hex');
}

/** Whether Redis refused an EVALSHA because it does not hold the script (flushed, or a new server). */
export function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

/** The Lua text of one script. */
export function scriptSource(name: ScriptName): string {
  return SOURCES.get(name) as string;
}

/** A client the scripts were defined on. */
type Client = Redis | Cluster;
type Arg = string | number | Buffer;

/** Registers every script sent on its own on `client` (idempotent). Pipelines made from it afterwards inherit them. */
export function defineScripts(client: Redis | Cluster): void {
  for (const name of Object.keys(SCRIPTS) as ScriptName[]) {
    const spec: ScriptSpec = SCRIPTS[name];
    if (spec.partOf !== undefined) continue;
    if (typeof (client as unknown as Record<string, unknown>)[spec.command] === 'function') continue;
    client.defineCommand(spec.command, { numberOfKeys: spec.keys, lua: scriptSource(name) });
  }
}

// The single call site of the defined scripts: refuses a KEYS/ARGV count other than the declared one.
function run(target: Client | ChainableCommander, name: ScriptName, keys: string[], args: Arg[]): unknown {
  const spec = checkCounts(name, keys, args);
  const command = (target as unknown as Record<string, (...a: Arg[]) => Promise<unknown>>)[spec.command];
  if (typeof command !== 'function') throw new LarqError(`script ${name} is not defined on this client`);
  return command.call(target, ...keys, ...args);
}

function checkCounts(name: ScriptName, keys: readonly string[], args: readonly Arg[]): ScriptSpec {
  const spec: ScriptSpec = SCRIPTS[name];
  const argsFit = spec.rest ? args.length >= spec.args : args.length === spec.args;
  if (keys.length !== spec.keys || !argsFit) {
    throw new LarqError(
      `script ${name} takes ${spec.keys} keys and ${spec.rest ? 'at least ' : ''}${spec.args} args, ` +
        `got ${keys.length} and ${args.length}`,
    );
  }
  return spec;
}

/** Where a script is sent: a connection, or a pipeline made from one (see CommandBatch). */
export type ScriptTarget = Client | ChainableCommander;

/**
 * Run a queue write that Redis must run at most once: an EVALSHA of `name` as an AtMostOnceCommand sent
 * on `target`. Redis without the script (flushed, restarted, a proxy that never keeps scripts) answers
 * NOSCRIPT without running anything, and the run is sent again as EVAL with the script's text on
 * `client`. `what` names the write for the error when its connection closes before the reply.
 */
function runOnce(
  target: ScriptTarget,
  client: Client,
  name: ScriptName,
  keys: string[],
  args: Arg[],
  what: string,
  buffers = false,
): Promise<unknown> {
  checkCounts(name, keys, args);
  const call = new AtMostOnceCommand('evalsha', [SHAS.get(name) as string, keys.length, ...keys, ...args], {
    what,
    buffers,
  });
  (target as unknown as { sendCommand(command: AtMostOnceCommand): unknown }).sendCommand(call);
  return (call.promise as Promise<unknown>).catch((error: unknown) => {
    if (!isNoScript(error)) throw error;
    const withSource = new AtMostOnceCommand('eval', [scriptSource(name), keys.length, ...keys, ...args], {
      what,
      buffers,
    });
    void client.sendCommand(withSource);
    return withSource.promise as Promise<unknown>;
  });
}

/**
 * What the pop script found: nothing, a reserved job, or a payload it moved to the quarantine list. A
 * reserved job's two strings are Buffers when the pop asked for them, as pop and popInto do: see RedisJob.
 */
export type PopReply =
  | { kind: 'empty' }
  | { kind: 'reserved'; job: string | Buffer; reserved: string | Buffer }
  | { kind: 'invalid'; job: string; reason: string };

const EMPTY: PopReply = Object.freeze({ kind: 'empty' });

/** The pop script's raw reply typed: Laravel's {job, reserved}, or {job, false, reason} for a quarantined payload. */
export function popReply(raw: unknown): PopReply {
  const [job, reserved, reason] = raw as (string | Buffer | null)[];
  return typedPop(job, reserved, reason);
}

/** The batch pop script's raw reply (flat triples, one per job it took), typed; empty when the list was empty. */
export function popReplies(raw: unknown): PopReply[] {
  const flat = raw as (string | Buffer | null)[];
  const out: PopReply[] = [];
  for (let i = 0; i + 2 < flat.length; i += 3) out.push(typedPop(flat[i], flat[i + 1], flat[i + 2]));
  return out;
}

/** What the worker's pop did, part by part; a part that failed carries its error instead. */
export interface WorkerPopReply {
  /** The finished jobs' reservations it removed (ZREM's count). */
  readonly removed: number | Error;
  /** The delayed jobs it moved to the queue, now due. */
  readonly delayedMoved: string[] | Error;
  /** The reservations older than retry_after it moved back to the queue (none when it was not asked to). */
  readonly expiredMoved: string[] | Error;
  /** The jobs it reserved or quarantined, in list order. */
  readonly popped: PopReply[] | Error;
}

/** The worker pop script's raw reply (see workerPop-5.lua), typed. */
export function workerPopReply(raw: unknown): WorkerPopReply {
  const [removed, delayedMoved, expiredMoved, popped] = raw as unknown[];
  return {
    removed: removed instanceof Error ? removed : Number(removed),
    delayedMoved: moved(delayedMoved),
    expiredMoved: moved(expiredMoved),
    popped: popped instanceof Error ? popped : popReplies(popped),
  };
}

// A migration's moved members, as strings (the reply's bulk strings are Buffers).
function moved(reply: unknown): string[] | Error {
  if (reply instanceof Error) return reply;
  const members = reply as (string | Buffer)[];
  return members.length === 0 ? [] : members.map(String);
}

function typedPop(
  job: string | Buffer | null | undefined,
  reserved: string | Buffer | null | undefined,
  reason: string | Buffer | null | undefined,
): PopReply {
  if (job === null || job === undefined) return EMPTY;
  if (reserved === null || reserved === undefined)
    return { kind: 'invalid', job: job.toString(), reason: reason?.toString() ?? 'unknown error' };
  return { kind: 'reserved', job, reserved };
}

/** Typed callers, one per script, on a client that went through {@link defineScripts}. */
export const scripts = {
  /** LLEN queue + ZCARD delayed + ZCARD reserved. */
  async size(target: Client, k: QueueKeys): Promise<number> {
    return Number(await run(target, 'size', [k.queue, k.delayed, k.reserved], []));
  },

  /** RPUSH the payload and one notify token, at most once; resolves to the script's reply (nil). */
  push(target: Client, k: QueueKeys, payload: string): Promise<unknown> {
    return runOnce(target, target, 'push', [k.queue, k.notify], [payload], `the push to ${k.queue}`);
  },

  /** ZADD the payload to the delayed set at `availableAt` (Unix seconds), at most once; resolves to nil. */
  later(target: Client, k: QueueKeys, availableAt: number, payload: string): Promise<unknown> {
    return runOnce(target, target, 'later', [k.delayed], [availableAt, payload], `the delayed push to ${k.delayed}`);
  },

  /** LPOP, reserve until `expiresAt` (Unix seconds), consume a notify token; quarantine what cannot decode. Payloads come back as Buffers (see popInto). */
  async pop(target: Client, k: QueueKeys, expiresAt: number): Promise<PopReply> {
    return popReply(await scripts.popOneInto(target, target, k, expiresAt));
  },

  /**
   * Issue Laravel's single pop on `target`, at most once (a NOSCRIPT retry goes to `client`); read its
   * reply with {@link popReply}. Payloads come back as Buffers, as with pop.
   */
  popOneInto(target: ScriptTarget, client: Client, k: QueueKeys, expiresAt: number): Promise<unknown> {
    return runOnce(
      target,
      client,
      'pop',
      [k.queue, k.reserved, k.notify, k.invalid],
      [expiresAt],
      `the pop from ${k.queue} (a job it reserved comes back after retry_after, as a crashed worker's does)`,
      true,
    );
  },

  /** ZREM the reserved string, ZADD it to the delayed set at `availableAt` (Unix seconds), at most once. */
  async release(target: Client, k: QueueKeys, reserved: string | Buffer, availableAt: number): Promise<void> {
    await runOnce(
      target,
      target,
      'release',
      [k.delayed, k.reserved],
      [reserved, availableAt],
      `the release of a job of ${k.reserved}`,
    );
  },

  /** Move members of `from` scored at or below `now` to the list `to` (+ tokens); `limit` < 0 = all. */
  async migrateExpiredJobs(
    target: Client,
    from: string,
    to: string,
    notify: string,
    now: number,
    limit: number,
  ): Promise<string[]> {
    return (await run(target, 'migrateExpiredJobs', [from, to, notify], [now, limit])) as string[];
  },

  /** Count the jobs of a queue, then DEL its four keys. */
  async clear(target: Client, k: QueueKeys): Promise<number> {
    return Number(await run(target, 'clear', [k.queue, k.delayed, k.reserved, k.notify], []));
  },

  /** Move a still-reserved job's expiry to `until` (Unix seconds); false when it is no longer reserved. */
  async extendReservation(target: Client, k: QueueKeys, reserved: string | Buffer, until: number): Promise<boolean> {
    return Number(await run(target, 'extendReservation', [k.reserved], [until, reserved])) === 1;
  },

  /**
   * A worker's pop as one call, at most once: remove the reservations `acks` of jobs it finished, migrate
   * (delayed jobs, then expired reservations when `migrateReserved`), and reserve up to `count` jobs until
   * `expiresAt`. Resolves to the script's reply, read with {@link workerPopReply}. Bulk strings come back as
   * Buffers: a worker parses each payload once and sends the reserved bytes back in its ZREM, so turning
   * both into strings only fed the garbage collector; and bytes go back exactly as they came, where a
   * string would have replaced any that are not UTF-8.
   */
  workerPop(
    target: Client,
    k: QueueKeys,
    migration: { now: number; limit: number; reserved: boolean },
    expiresAt: number,
    count: number,
    acks: readonly (string | Buffer)[],
  ): Promise<unknown> {
    return runOnce(
      target,
      target,
      'workerPop',
      [k.queue, k.delayed, k.reserved, k.notify, k.invalid],
      [migration.now, migration.limit, migration.reserved ? 1 : 0, expiresAt, count, ...acks],
      `the pop from ${k.queue} (a job it reserved comes back after retry_after, as a crashed worker's does)`,
      true,
    );
  },

  /**
   * Horizon's metrics update on a pipeline or client: one more job of `runtimeMs` in the hash `key`,
   * registered in the set `group` (full key names). A resend after a reconnect counts the job twice, as
   * Horizon's own EVAL would.
   */
  updateMetricsInto(target: ScriptTarget, key: string, group: string, runtimeMs: string): unknown {
    return run(target, 'updateMetrics', [key, group], [runtimeMs]);
  },

  /** DEL the lock key only while `owner` holds it; true when it was deleted. */
  async releaseLock(target: Client, key: string, owner: string): Promise<boolean> {
    return Number(await run(target, 'releaseLock', [key], [owner])) > 0;
  },

  /** DurationLimiter::acquire: [acquired (1 or null), window end, slots left]. Times as PHP's microtime(true) and time(). */
  async durationLimiter(
    target: Client,
    key: string,
    nowFraction: string,
    now: number,
    decaySeconds: number,
    maxLocks: number,
  ): Promise<[number | null, number | string, number]> {
    return (await run(target, 'durationLimiter', [key], [nowFraction, now, decaySeconds, maxLocks])) as [
      number | null,
      number | string,
      number,
    ];
  },

  /** DurationLimiter::tooManyAttempts: [window end, slots left] (see the script for the no-window reply). */
  async durationLimiterTooManyAttempts(
    target: Client,
    key: string,
    nowFraction: string,
    now: number,
    decaySeconds: number,
    maxLocks: number,
  ): Promise<[number | string, number | string]> {
    return (await run(target, 'durationLimiterTooManyAttempts', [key], [nowFraction, now, decaySeconds, maxLocks])) as [
      number | string,
      number | string,
    ];
  },
};
