// Laravel's Illuminate\Cache\Lock: what every store's lock handle shares. A handle is a name, a lifetime
// and an owner token; nothing is written until acquire(), and release() only frees a lock this owner
// holds. Each store's subclass (ArrayLock, DatabaseLock, RedisLock in Laravel) says where the lock lives.
import { randomLockOwner, wholeSeconds, type CacheLock } from './CacheStore';

/** A lock handle: `seconds` as Laravel's Repository truncates it, `owner` 16 random alphanumerics unless given. */
export abstract class Lock implements CacheLock {
  readonly seconds: number;
  readonly owner: string;

  constructor(
    readonly name: string,
    seconds: number,
    owner: string | null,
  ) {
    this.seconds = wholeSeconds('seconds', seconds);
    this.owner = owner ?? randomLockOwner();
  }

  abstract acquire(): Promise<boolean>;
  abstract release(): Promise<boolean>;
  abstract forceRelease(): Promise<void>;
  abstract currentOwner(): Promise<string | null>;
}
