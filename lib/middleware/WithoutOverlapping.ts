// Laravel's `Illuminate\Queue\Middleware\WithoutOverlapping` (8.x-13.x): one cache lock per key, taken on
// the cache store's lock connection, so a PHP and a Node worker never run two jobs of one key at once.
import { UnsupportedMiddlewareError } from '../errors';
import { xxh128 } from '../features/xxh128';
import type { PhpObject } from '../php/values';
import { registerMiddlewareDecoder } from './fromPayload';
import { jobDisplayName, type JobMiddleware, type MiddlewareContext } from './JobMiddleware';
import { intOrNull, keyProperty } from './phpValues';

const CLASS = 'Illuminate\\Queue\\Middleware\\WithoutOverlapping';

/** The middleware's settings, named as Laravel's properties. */
export interface WithoutOverlappingOptions {
  /** Seconds before a job that found the lock taken runs again; null deletes it instead (`dontRelease()`). Default 0. */
  releaseAfter?: number | null;
  /** Seconds the lock lives, so a crashed worker's lock expires (`expireAfter()`); 0 = until released. Default 0. */
  expiresAfter?: number;
  /** The lock name's prefix (`withPrefix()`). Default `laravel-queue-overlap:`. */
  prefix?: string;
  /** One lock for every job class using this key (`shared()`). Default false. */
  shared?: boolean;
}

type KeyOf =
  string | number | ((command: Readonly<Record<string, unknown>>, ctx: MiddlewareContext) => string | number);

/** WithoutOverlapping with a fixed key or one read from the command. */
export class WithoutOverlapping implements JobMiddleware {
  readonly className = CLASS;
  readonly releaseAfter: number | null;
  readonly expiresAfter: number;
  readonly prefix: string;
  readonly shared: boolean;

  constructor(
    private readonly key: KeyOf = '',
    options: WithoutOverlappingOptions = {},
    // 8.x's getLockKey: always the class name, unhashed
    private readonly classNameOnly = false,
  ) {
    this.releaseAfter = options.releaseAfter === undefined ? 0 : options.releaseAfter;
    this.expiresAfter = options.expiresAfter ?? 0;
    this.prefix = options.prefix ?? 'laravel-queue-overlap:';
    this.shared = options.shared ?? false;
  }

  /** WithoutOverlapping::getLockKey: prefix, then the job's class (xxh128 of its display name when it has one), then the key. */
  async lockKey(ctx: MiddlewareContext): Promise<string> {
    const key = String(typeof this.key === 'function' ? this.key(ctx.command, ctx) : this.key);
    if (this.shared) return this.prefix + key;
    const { name, hasDisplayName } = jobDisplayName(ctx.job);
    const jobName =
      hasDisplayName && !this.classNameOnly
        ? await xxh128(name)
        : (ctx.job.payload.commandName ?? ctx.job.command.className);
    return `${this.prefix}${jobName}:${key}`;
  }

  async handle(ctx: MiddlewareContext, next: () => Promise<void>): Promise<void> {
    const cache = ctx.services.cache;
    if (!cache)
      throw new UnsupportedMiddlewareError(ctx.job.payload.name, CLASS, 'no cache store is configured for its lock');
    const lock = cache.lock(await this.lockKey(ctx), this.expiresAfter);
    if (await lock.acquire()) {
      try {
        await next();
      } finally {
        await lock.release(); // owner-checked: a lock that expired and was taken by another is left alone
      }
    } else if (this.releaseAfter !== null) {
      await ctx.job.release(this.releaseAfter);
    }
  }
}

/**
 * Declare WithoutOverlapping on a Node handler: `withoutOverlapping((c) => c.site)`, the same lock PHP's
 * `new WithoutOverlapping($this->site)` takes for the job class the handler replaces.
 */
export function withoutOverlapping(key: KeyOf = '', options: WithoutOverlappingOptions = {}): WithoutOverlapping {
  return new WithoutOverlapping(key, options);
}

function decode(object: PhpObject, jobName: string): JobMiddleware {
  const line8 = object.get('shareKey') === undefined; // 8.x has neither shared() nor display-name keys
  return new WithoutOverlapping(
    keyProperty(object, 'key', jobName),
    {
      releaseAfter: intOrNull(object, 'releaseAfter', jobName),
      expiresAfter: intOrNull(object, 'expiresAfter', jobName) ?? 0,
      prefix: keyProperty(object, 'prefix', jobName),
      shared: object.get('shareKey') === true,
    },
    line8,
  );
}

registerMiddlewareDecoder(CLASS, decode);
