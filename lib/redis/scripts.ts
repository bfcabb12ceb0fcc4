// The queue's Lua scripts: read from disk once (lib/redis/lua, copied to dist/redis/lua by the build),
// registered on a client with ioredis defineCommand (EVALSHA, falling back to EVAL on NOSCRIPT), and called
// through typed functions that always pass the declared number of KEYS and ARGV. push and later, sent one
// job at a time, skip defineCommand on a plain connection: they write their own prebuilt EVALSHA, with the
// same fallback (runAlone, lib/redis/ScriptCall.ts).
import { readFileSync } from 'fs';
import { join } from 'path';
import Redis from 'ioredis';
import type { Cluster, ChainableCommander } from 'ioredis';
import { LarqError } from '../errors';
import type { QueueKeys } from './keys';
import { isNoScript, ScriptCall, ScriptFrame, scriptSha } from './ScriptCall';

/** One script: its file, the ioredis command name it is registered under, and its KEYS/ARGV counts. */
export interface ScriptSpec {
  readonly file: string;
  readonly command: string;
  readonly keys: number;
  readonly args: number;
}

/** Every script larq runs (the queue's, and the cache lock's owner-checked release), by name. The key count is also in the file name (checked by a spec). */
export const SCRIPTS = Object.freeze({
  size: { file: 'size-3.lua', command: 'larqSize', keys: 3, args: 0 },
  push: { file: 'push-2.lua', command: 'larqPush', keys: 2, args: 1 },
  later: { file: 'later-1.lua', command: 'larqLater', keys: 1, args: 2 },
  pop: { file: 'pop-4.lua', command: 'larqPop', keys: 4, args: 2 },
  popBatch: { file: 'popBatch-4.lua', command: 'larqPopBatch', keys: 4, args: 2 },
  release: { file: 'release-2.lua', command: 'larqRelease', keys: 2, args: 2 },
  migrateExpiredJobs: { file: 'migrateExpiredJobs-3.lua', command: 'larqMigrateExpiredJobs', keys: 3, args: 2 },
  clear: { file: 'clear-4.lua', command: 'larqClear', keys: 4, args: 0 },
  extendReservation: { file: 'extendReservation-1.lua', command: 'larqExtendReservation', keys: 1, args: 2 },
  releaseLock: { file: 'releaseLock-1.lua', command: 'larqReleaseLock', keys: 1, args: 1 },
} satisfies Record<string, ScriptSpec>);

/** A script's name in {@link SCRIPTS}. */
export type ScriptName = keyof typeof SCRIPTS;

/** The directory holding the .lua files: next to this module, in source and in the build alike. */
export const LUA_DIR = join(__dirname, 'lua');

let sources: Map<ScriptName, string> | undefined;

/** The Lua text of one script, read from disk the first time any script is needed. */
export function scriptSource(name: ScriptName): string {
  sources ??= new Map(
    (Object.keys(SCRIPTS) as ScriptName[]).map((n) => [n, readFileSync(join(LUA_DIR, SCRIPTS[n].file), 'utf8')]),
  );
  return sources.get(name) as string;
}

/** A client the scripts were defined on. */
type Client = Redis | Cluster;
type Arg = string | number | Buffer;

// Clients that already carry the commands: defineCommand is cheap, but once per client is enough.
const defined = new WeakSet<object>();

/** Registers every script on `client` (idempotent). Pipelines made from it afterwards inherit them. */
export function defineScripts(client: Redis | Cluster): void {
  if (defined.has(client)) return;
  for (const name of Object.keys(SCRIPTS) as ScriptName[]) {
    const spec = SCRIPTS[name];
    client.defineCommand(spec.command, { numberOfKeys: spec.keys, lua: scriptSource(name) });
  }
  defined.add(client);
}

// The single call site of every script: refuses a KEYS/ARGV count other than the declared one. With
// `buffers`, bulk strings in the reply come back as Buffers (ioredis' `...Buffer` variant of the command).
function run(target: Client | ChainableCommander, name: ScriptName, keys: string[], args: Arg[], buffers = false): unknown {
  const spec = checkCounts(name, keys, args);
  const command = (target as unknown as Record<string, (...a: Arg[]) => Promise<unknown>>)[buffers ? `${spec.command}Buffer` : spec.command];
  if (typeof command !== 'function') throw new LarqError(`script ${name} is not defined on this client`);
  return command.call(target, ...keys, ...args);
}

function checkCounts(name: ScriptName, keys: readonly string[], args: readonly Arg[]): ScriptSpec {
  const spec = SCRIPTS[name];
  if (keys.length !== spec.keys || args.length !== spec.args) {
    throw new LarqError(`script ${name} takes ${spec.keys} keys and ${spec.args} args, got ${keys.length} and ${args.length}`);
  }
  return spec;
}

/**
 * A client whose commands go to Redis in the order they are sent, each written as it is sent: a plain
 * connection (connected or not: ioredis' offline queue keeps the order), not a cluster, and not
 * auto-pipelining, which would hold the commands issued through its methods for the next tick and let
 * one sent directly overtake them.
 */
function sendsInOrder(target: Client): target is Redis {
  return target instanceof Redis && target.options.enableAutoPipelining !== true;
}

// The frames of the scripts called one job at a time, per queue (KeySpace keeps one keys object per queue).
type AloneScript = 'push' | 'later';
const frames: Record<AloneScript, WeakMap<QueueKeys, ScriptFrame>> = { push: new WeakMap(), later: new WeakMap() };
const shas = new Map<ScriptName, string>();

/**
 * Run a script as one prebuilt EVALSHA (see ScriptCall). Redis without the script (flushed, restarted)
 * answers NOSCRIPT without running anything, and the call is made again with the script's text, as
 * ioredis' defineCommand does.
 */
async function runAlone(client: Redis, name: AloneScript, k: QueueKeys, keys: string[], args: (string | number)[]): Promise<unknown> {
  const spec = checkCounts(name, keys, args);
  let frame = frames[name].get(k);
  if (frame === undefined) {
    let sha = shas.get(name);
    if (sha === undefined) shas.set(name, (sha = scriptSha(scriptSource(name))));
    frames[name].set(k, (frame = new ScriptFrame(sha, keys, spec.args)));
  }
  const call = new ScriptCall(frame, args);
  client.sendCommand(call);
  try {
    return await call.promise;
  } catch (error) {
    if (!isNoScript(error)) throw error;
    return client.eval(scriptSource(name), keys.length, ...keys, ...args);
  }
}

/**
 * What the pop script found: nothing, a reserved job, or a payload it moved to the quarantine list. A
 * reserved job's two strings are Buffers when the pop asked for them, as pop and popInto do: see RedisJob.
 */
export type PopReply =
  | { kind: 'empty' }
  | { kind: 'reserved'; job: string | Buffer; reserved: string | Buffer }
  | { kind: 'invalid'; job: string; reason: string };

/** The pop script's raw reply (flat triples, one per job it took), typed; empty when the list was empty. */
export function popReplies(raw: unknown): PopReply[] {
  const flat = raw as (string | Buffer | null)[];
  const out: PopReply[] = [];
  for (let i = 0; i + 2 < flat.length; i += 3) {
    const job = flat[i] as string | Buffer;
    const reserved = flat[i + 1];
    if (reserved === null || reserved === undefined) {
      out.push({ kind: 'invalid', job: job.toString(), reason: flat[i + 2]?.toString() ?? 'unknown error' });
    } else out.push({ kind: 'reserved', job, reserved });
  }
  return out;
}

/** Typed callers, one per script, on a client that went through {@link defineScripts}. */
export const scripts = {
  /** LLEN queue + ZCARD delayed + ZCARD reserved. */
  async size(target: Client, k: QueueKeys): Promise<number> {
    return Number(await run(target, 'size', [k.queue, k.delayed, k.reserved], []));
  },

  /** RPUSH the payload and one notify token; resolves to the script's reply (nil). */
  push(target: Client, k: QueueKeys, payload: string): Promise<unknown> {
    return sendsInOrder(target) ? runAlone(target, 'push', k, [k.queue, k.notify], [payload]) : (run(target, 'push', [k.queue, k.notify], [payload]) as Promise<unknown>);
  },

  /** ZADD the payload to the delayed set at `availableAt` (Unix seconds); resolves to the script's reply (nil). */
  later(target: Client, k: QueueKeys, availableAt: number, payload: string): Promise<unknown> {
    return sendsInOrder(target) ? runAlone(target, 'later', k, [k.delayed], [availableAt, payload]) : (run(target, 'later', [k.delayed], [availableAt, payload]) as Promise<unknown>);
  },

  /**
   * Issue a later on a pipeline or MULTI made from a defined client (its reply comes with exec()), or on a
   * defined client inside a MULTI it is streaming (the returned promise is the QUEUED reply).
   */
  laterInto(target: Client | ChainableCommander, k: QueueKeys, availableAt: number, payload: string): unknown {
    return run(target, 'later', [k.delayed], [availableAt, payload]);
  },

  /** LPOP, reserve until `expiresAt` (Unix seconds), consume a notify token; quarantine what cannot decode. Payloads come back as Buffers (see popInto). */
  async pop(target: Client, k: QueueKeys, expiresAt: number): Promise<PopReply> {
    const [first] = popReplies(await scripts.popOneInto(target, k, expiresAt));
    return first ?? { kind: 'empty' };
  },

  /**
   * Issue one single pop (Laravel's, not the batch script) as migrateExpiredJobsInto does; read its reply
   * with {@link popReplies}. Payloads come back as Buffers, as with pop.
   */
  popOneInto(target: Client | ChainableCommander, k: QueueKeys, expiresAt: number): unknown {
    return run(target, 'pop', [k.queue, k.reserved, k.notify, k.invalid], [expiresAt, 1], true);
  },

  /** ZREM the reserved string, ZADD it to the delayed set at `availableAt` (Unix seconds). */
  async release(target: Client, k: QueueKeys, reserved: string | Buffer, availableAt: number): Promise<void> {
    await run(target, 'release', [k.delayed, k.reserved], [reserved, availableAt]);
  },

  /** Move members of `from` scored at or below `now` to the list `to` (+ tokens); `limit` < 0 = all. */
  async migrateExpiredJobs(target: Client, from: string, to: string, notify: string, now: number, limit: number): Promise<string[]> {
    return (await run(target, 'migrateExpiredJobs', [from, to, notify], [now, limit])) as string[];
  },

  /**
   * Issue a migration on a pipeline made from a defined client (its reply, the moved members, comes with
   * exec()) or on a corked defined client (the returned promise is its reply); see OneWrite.
   */
  migrateExpiredJobsInto(target: Client | ChainableCommander, from: string, to: string, notify: string, now: number, limit: number): unknown {
    return run(target, 'migrateExpiredJobs', [from, to, notify], [now, limit]);
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
   * Issue a pop of up to `count` jobs, as migrateExpiredJobsInto does; read its reply with
   * {@link popReplies}. The payloads come back as Buffers: a worker parses each payload once and sends
   * the reserved bytes back in its ZREM, so turning both into strings only fed the garbage collector;
   * and bytes go back exactly as they came, where a string would have replaced any that are not UTF-8.
   */
  popInto(target: Client | ChainableCommander, k: QueueKeys, expiresAt: number, count: number): unknown {
    // The batch script: the state and reply of `count` pops, with each Redis command issued once per batch.
    return run(target, 'popBatch', [k.queue, k.reserved, k.notify, k.invalid], [expiresAt, count], true);
  },

  /** DEL the lock key only while `owner` holds it; true when it was deleted. */
  async releaseLock(target: Client, key: string, owner: string): Promise<boolean> {
    return Number(await run(target, 'releaseLock', [key], [owner])) > 0;
  },
};
