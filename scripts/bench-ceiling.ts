// The ceiling row of `npm run bench` (scripts/bench.ts): the fastest this Redis can make the state changes
// a Laravel-protocol worker makes per job, with no worker in the way, found by searching over ways to ask.
// Per job, every configuration does what Laravel's pop and delete do to Redis:
//   reserve: take the job off the head of the waiting list, add 1 to its `attempts`, ZADD the result into
//            `:reserved` (score: the reservation's expiry), take one token off `:notify`;
//   ack:     ZREM the reserved string from `:reserved`.
// The ways searched:
//   lua-each  a script that, per job, runs LPOP, cjson decode/+1/encode, ZADD, LPOP notify (Laravel's pop
//             script, looped over `batch` jobs a call);
//   lua-bulk  a script that takes `batch` jobs with one LRANGE + LTRIM, re-encodes each with cjson, ZADDs
//             them all in one command and trims `:notify` once;
//   plain     no script: LPOP with a count, the +1 done in the client on the JSON text, then ZADD of the
//             batch and LPOP of `:notify` with a count in the next write. Not atomic (a client dying
//             between the two writes loses the jobs) and its bytes are not cjson's, so no Laravel-compatible
//             worker may work this way; it is searched because it asks the least of Redis's Lua.
// Each way runs with `batch` jobs a call, `perWrite` calls pipelined in one write, and `lanes` such writes
// in flight at once; every write also carries the ZREM of the jobs the lane's previous write reserved.
import Redis from 'ioredis';
import { performance } from 'perf_hooks';

export interface CeilingConfig {
  kind: 'lua-each' | 'lua-bulk' | 'plain';
  /** Jobs a script call (or LPOP) takes. */
  batch: number;
  /** Calls pipelined in one write. */
  perWrite: number;
  /** Writes in flight at once, each from a lane of its own. */
  lanes: number;
}

/** The keys of one Laravel queue. */
export interface CeilingKeys {
  waiting: string;
  reserved: string;
  notify: string;
}

export function describeCeiling(c: CeilingConfig): string {
  return `${c.kind}, ${c.batch} job${c.batch > 1 ? 's' : ''} a call, ${c.perWrite} call${c.perWrite > 1 ? 's' : ''} a write, ${c.lanes} write${c.lanes > 1 ? 's' : ''} in flight`;
}

/** Every configuration the search tries: about 500 jobs a write at most, from 1 to 1,000 jobs a call. */
export function ceilingSearchSpace(): CeilingConfig[] {
  const out: CeilingConfig[] = [];
  const perWrite = (batch: number) => Math.max(1, Math.min(50, Math.round(500 / batch)));
  for (const kind of ['lua-each', 'lua-bulk'] as const) {
    for (const batch of [1, 10, 50, 100, 250, 500, 1000])
      for (const lanes of [1, 2, 4]) out.push({ kind, batch, perWrite: perWrite(batch), lanes });
  }
  for (const batch of [1, 10, 100, 1000])
    for (const lanes of [1, 2, 4]) out.push({ kind: 'plain', batch, perWrite: perWrite(batch), lanes });
  return out;
}

const LUA_EACH = `
local out = {}
for i = 1, tonumber(ARGV[2]) do
  local job = redis.call('LPOP', KEYS[1])
  if not job then break end
  local decoded = cjson.decode(job)
  decoded['attempts'] = decoded['attempts'] + 1
  local reserved = cjson.encode(decoded)
  redis.call('ZADD', KEYS[2], ARGV[1], reserved)
  redis.call('LPOP', KEYS[3])
  out[i] = reserved
end
return out`;

const LUA_BULK = `
local jobs = redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1)
local n = #jobs
if n == 0 then return {} end
local out = {}
local zadd = {}
for i = 1, n do
  local decoded = cjson.decode(jobs[i])
  decoded['attempts'] = decoded['attempts'] + 1
  local reserved = cjson.encode(decoded)
  out[i] = reserved
  zadd[2 * i - 1] = ARGV[1]
  zadd[2 * i] = reserved
end
redis.call('ZADD', KEYS[2], unpack(zadd))
redis.call('LTRIM', KEYS[1], n, -1)
redis.call('LTRIM', KEYS[3], n, -1)
return out`;

interface CeilingClient extends Redis {
  ceilingEach(waiting: string, reserved: string, notify: string, expiry: number, count: number): Promise<string[]>;
  ceilingBulk(waiting: string, reserved: string, notify: string, expiry: number, count: number): Promise<string[]>;
}

function ceilingClient(port: number): CeilingClient {
  const client = new Redis({ port });
  client.defineCommand('ceilingEach', { numberOfKeys: 3, lua: LUA_EACH });
  client.defineCommand('ceilingBulk', { numberOfKeys: 3, lua: LUA_BULK });
  return client as CeilingClient;
}

/** For the spec of these runs: a fixed reservation expiry, or reservations left in place (no ZREM). */
export interface DrainOptions {
  /** The reservation's expiry in Unix seconds; default now + 90 (retry_after). */
  expiry?: () => number;
  /** Whether each reservation is acknowledged (ZREM); default true. */
  acknowledge?: boolean;
}

/** Take and acknowledge every job of the queue the way `config` says; resolves to the jobs taken. */
export async function drainAtCeiling(
  port: number,
  keys: CeilingKeys,
  config: CeilingConfig,
  options: DrainOptions = {},
): Promise<number> {
  const client = ceilingClient(port);
  await client.ping();
  let taken = 0;
  let empty = false;
  const expiry = options.expiry ?? (() => Math.floor(Date.now() / 1000) + 90);
  const acknowledge = options.acknowledge ?? true;
  const scriptLane = async (): Promise<void> => {
    let acks: string[] = [];
    while (!empty || acks.length > 0) {
      const pipeline = client.pipeline() as unknown as CeilingClient;
      if (acks.length > 0) pipeline.zrem(keys.reserved, ...acks);
      acks = [];
      if (!empty) {
        for (let i = 0; i < config.perWrite; i++) {
          if (config.kind === 'lua-each')
            pipeline.ceilingEach(keys.waiting, keys.reserved, keys.notify, expiry(), config.batch);
          else pipeline.ceilingBulk(keys.waiting, keys.reserved, keys.notify, expiry(), config.batch);
        }
      }
      for (const [error, raw] of (await (pipeline as unknown as ReturnType<Redis['pipeline']>).exec()) ?? []) {
        if (error) throw error;
        if (!Array.isArray(raw)) continue; // the ZREM's count
        if (raw.length < config.batch) empty = true;
        if (acknowledge) for (const reserved of raw as string[]) acks.push(reserved);
        taken += raw.length;
      }
    }
  };
  const plainLane = async (): Promise<void> => {
    let acks: string[] = [];
    while (!empty || acks.length > 0) {
      const pop = client.pipeline();
      if (acks.length > 0) pop.zrem(keys.reserved, ...acks);
      acks = [];
      if (!empty) for (let i = 0; i < config.perWrite; i++) pop.lpop(keys.waiting, config.batch);
      const reservedNow: string[] = [];
      for (const [error, raw] of (await pop.exec()) ?? []) {
        if (error) throw error;
        if (typeof raw === 'number') continue; // the ZREM's count
        const jobs = (raw as string[] | null) ?? [];
        if (jobs.length < config.batch) empty = true;
        for (const job of jobs)
          reservedNow.push(job.replace(/"attempts":(\d+)/, (_, n: string) => `"attempts":${Number(n) + 1}`));
      }
      if (reservedNow.length === 0) continue;
      const reserve = client.pipeline();
      const at = expiry();
      const members: (string | number)[] = [];
      for (const reserved of reservedNow) members.push(at, reserved);
      reserve.zadd(keys.reserved, ...members);
      reserve.lpop(keys.notify, reservedNow.length);
      for (const [error] of (await reserve.exec()) ?? []) if (error) throw error;
      taken += reservedNow.length;
      if (acknowledge) acks = reservedNow;
    }
  };
  const lane = config.kind === 'plain' ? plainLane : scriptLane;
  try {
    await Promise.all(Array.from({ length: config.lanes }, () => lane()));
  } finally {
    client.disconnect();
  }
  return taken;
}

/** One configuration's rate in a search run. */
export interface CeilingTrial {
  config: CeilingConfig;
  perSecond: number;
}

/**
 * Run every configuration on `jobs` jobs (refilled before each run by `refill`); then, among all of them
 * and among the scripted ones alone (atomic, cjson's bytes: what a Laravel-compatible worker may do), the
 * best three run twice more and the best median of three wins. Returns both winners and every trial.
 */
export async function searchCeiling(
  port: number,
  keys: CeilingKeys,
  jobs: number,
  refill: () => Promise<void>,
  between: () => void,
): Promise<{ best: CeilingTrial; bestScripted: CeilingTrial; trials: CeilingTrial[] }> {
  const run = async (config: CeilingConfig): Promise<number> => {
    await refill();
    between();
    const start = performance.now();
    const taken = await drainAtCeiling(port, keys, config);
    const seconds = (performance.now() - start) / 1000;
    if (taken !== jobs) throw new Error(`ceiling search (${describeCeiling(config)}) took ${taken} jobs, not ${jobs}`);
    return jobs / seconds;
  };
  const trials: CeilingTrial[] = [];
  for (const config of ceilingSearchSpace()) trials.push({ config, perSecond: await run(config) });
  const final = async (among: CeilingTrial[]): Promise<CeilingTrial> => {
    const finalists: CeilingTrial[] = [];
    for (const t of [...among].sort((a, b) => b.perSecond - a.perSecond).slice(0, 3)) {
      const runs = [t.perSecond, await run(t.config), await run(t.config)].sort((a, b) => a - b);
      finalists.push({ config: t.config, perSecond: runs[1] });
    }
    return finalists.sort((a, b) => b.perSecond - a.perSecond)[0];
  };
  const best = await final(trials);
  const bestScripted =
    best.config.kind === 'plain' ? await final(trials.filter((t) => t.config.kind !== 'plain')) : best;
  return { best, bestScripted, trials };
}
