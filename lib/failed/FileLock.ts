// The lock Laravel's file failed-job store takes around each read-modify-write of its file, taken the way
// PHP takes it, so larq and PHP processes sharing the file exclude each other. QueueServiceProvider
// (12.x) gives FileFailedJobProvider the `file` cache store, and `lock()` runs
// `store('file')->lock('laravel-failed-jobs', 5)->block(10, ...)`: Laravel `FileStore::lock` makes a
// `FileLock` named "file-store-lock:laravel-failed-jobs" in the store's lock directory, whose
// `acquire` is `FileStore::add`: open the key's file with fopen mode "c+", take flock(LOCK_EX | LOCK_NB)
// on it, read the first ten bytes (the expiry in UNIX seconds) and, when the file is empty or expired,
// write `expiry . serialize(owner)` before closing. `release` deletes the file when it still names this
// owner. The flock guards only that check-and-write, so this module holds it only for the same span.
//
// Node has no flock(2): util-linux's flock(1) is given the open file as its descriptor 3 and takes the
// lock on it. A flock belongs to the open file description, which this process's descriptor keeps alive
// after flock(1) exits, so the lock is this process's until it closes the file. (fcntl and OFD locks,
// which native packages offer, do not exclude flock(2) holders on Linux.)
import { spawn } from 'child_process';
import { createHash, randomInt } from 'crypto';
import { constants, promises as fs } from 'fs';
import { dirname, join } from 'path';
import { FileLockError } from '../errors';

/** Laravel `FileStore::path`: sha1 of the key, its first two byte pairs as folders. */
export function fileStorePath(directory: string, key: string): string {
  const hash = createHash('sha1').update(key).digest('hex');
  return join(directory, hash.slice(0, 2), hash.slice(2, 4), hash);
}

const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const FLOCK_CONFLICT = 75;

/** Laravel's `FileLock` on its `file` cache store, as `CacheLock::block` uses it. */
export class FileLock {
  /** The lock's file in the cache store's directory. */
  readonly path: string;
  // Laravel's Str::random(16): the owner the file names while this lock holds it.
  private readonly owner = Array.from({ length: 16 }, () => ALPHANUMERIC[randomInt(ALPHANUMERIC.length)]).join('');

  /** `directory`: the file cache store's lock directory; `name` as given to `lock()`; `seconds` its lifetime. */
  constructor(
    directory: string,
    name: string,
    private readonly seconds: number,
  ) {
    this.path = fileStorePath(directory, `file-store-lock:${name}`);
  }

  /** Laravel `Lock::block`: try every 250 ms for up to `seconds`, run `work`, then release. */
  async block<T>(seconds: number, work: () => Promise<T>): Promise<T> {
    const started = Date.now();
    while (!(await this.acquire())) {
      if (Date.now() + 250 - seconds * 1000 >= started) {
        throw new FileLockError(`Another process held the lock ${this.path} for ${seconds} s`, this.path);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    try {
      return await work();
    } finally {
      await this.release();
    }
  }

  /** Laravel `FileStore::add` of this lock's owner; true when this process holds the lock now. */
  async acquire(): Promise<boolean> {
    await fs.mkdir(dirname(this.path), { recursive: true });
    const file = await fs.open(this.path, constants.O_RDWR | constants.O_CREAT, 0o666);
    try {
      if (!(await flockNonBlocking(file.fd, this.path))) return false;
      const head = Buffer.alloc(10);
      const { bytesRead } = await file.read(head, 0, 10, 0);
      if (bytesRead > 0 && nowSeconds() < Number(head.toString('latin1', 0, bytesRead))) return false;
      await file.truncate(0);
      await file.write(`${this.expiration()}s:${this.owner.length}:"${this.owner}";`, 0);
      return true;
    } finally {
      await file.close();
    }
  }

  /** Laravel `CacheLock::release`: delete the file while it still names this owner and has not expired. */
  async release(): Promise<void> {
    let content: string;
    try {
      content = await fs.readFile(this.path, 'latin1');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    if (
      nowSeconds() < Number(content.slice(0, 10)) &&
      content.slice(10) === `s:${this.owner.length}:"${this.owner}";`
    ) {
      await fs.rm(this.path, { force: true });
    }
  }

  // Laravel `FileStore::expiration`: now plus the lifetime; 9999999999 for none.
  private expiration(): number {
    return this.seconds === 0 ? 9999999999 : Math.min(nowSeconds() + this.seconds, 9999999999);
  }
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

// flock(LOCK_EX | LOCK_NB) on `fd` through flock(1); false when another open file holds the lock.
function flockNonBlocking(fd: number, path: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const child = spawn('flock', ['--exclusive', '--nonblock', '--conflict-exit-code', String(FLOCK_CONFLICT), '3'], {
      stdio: ['ignore', 'ignore', 'pipe', fd],
    });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('error', (e) =>
      reject(
        new FileLockError(`Cannot lock ${path}: flock(1) from util-linux could not be run (${e.message})`, path, {
          cause: e,
        }),
      ),
    );
    child.on('close', (code) => {
      if (code === 0) resolve(true);
      else if (code === FLOCK_CONFLICT) resolve(false);
      else reject(new FileLockError(`Cannot lock ${path}: flock(1) exited ${code}: ${stderr.trim()}`, path));
    });
  });
}
