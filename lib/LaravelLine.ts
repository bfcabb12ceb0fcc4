// Which Laravel release the PHP peers run, and the rules that follow from it. Laravel changes the queue's
// wire format and behaviour inside a major line too (12.11 `createdAt`, 12.51 `batchId`, 13.6 debounce,
// 13.24 lock owners, 13.25 global pause), so a version names a minor release where it matters.
import { InvalidOptionError } from './errors';

/** A Laravel major version larq speaks with. */
export type LaravelMajor = 8 | 9 | 10 | 11 | 12 | 13;

/**
 * The PHP peers' Laravel version, as the `laravel` option and `larq --laravel` take it: a major (`12` or
 * `'12'`), meaning the newest release of that line larq knows (8.83, 9.52, 10.50, 11.56, 12.67, 13.26), or
 * a `'major.minor'` string (`'12.11'`, `'13.26'`) for a peer inside a line.
 */
export type LaravelVersion = LaravelMajor | `${LaravelMajor}` | `${LaravelMajor}.${LaravelMinor}`;

type Digit = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9';
/** A minor release number as written: 0 to 99, no leading zero. */
type LaravelMinor = Digit | `${Exclude<Digit, '0'>}${Digit}`;

/**
 * The payload shape of a Laravel release (which fields the envelope has). 8: Laravel 8.x-11.x and
 * 12.0-12.10. 12: 12.11+, adding `createdAt` and `delay` (12.51+ also `data.batchId`). 13: 13.x, adding
 * `deleteWhenMissingModels` and 13.x's prefix and cluster keys.
 */
export type LaravelLine = 8 | 12 | 13;

const MAJORS: readonly LaravelMajor[] = [8, 9, 10, 11, 12, 13];

/** The newest release of each line larq was checked against: what a bare major means. */
const NEWEST_MINOR: Readonly<Record<LaravelMajor, number>> = { 8: 83, 9: 52, 10: 50, 11: 56, 12: 67, 13: 26 };

/** What a version must look like, for error messages. */
export const LARAVEL_VERSION_RULE = 'must be a Laravel version from 8 to 13: a major, or major.minor such as 12.11';

/** The first release with each version-dependent rule larq follows (docs/compatibility.md lists them per line). */
export const LARAVEL_RULES = Object.freeze({
  /** Unique lock keys put `:` between class and uniqueId. */
  uniqueKeySeparator: '11.0',
  /** Payload `createdAt` and `delay`. */
  createdAt: '12.11',
  /** Unique lock keys use `displayName()` when the job has it. */
  uniqueKeyDisplayName: '12.41',
  /** Payload `data.batchId`. */
  batchId: '12.51',
  /** Unique lock keys hash `displayName()` with xxh128. */
  uniqueKeyHash: '12.54',
  /** Payload `deleteWhenMissingModels`; the 13.x skeleton's prefix. */
  deleteWhenMissingModels: '13.0',
  /** `queues:{name}` keys on cluster connections. */
  clusterQueueKeys: '13.5',
  /** Debounced jobs (`debounceOwner`). */
  debounce: '13.6',
  /** Unique locks carry their owner in the job (`uniqueLockOwner`) and are released by owner. */
  uniqueLockOwner: '13.24',
  /** `Queue::pauseAll()` / `queue:pause --all`. */
  globalPause: '13.25',
  /** The `JobReleased` event. */
  jobReleasedEvent: '13.26',
} as const);

/** A rule of {@link LARAVEL_RULES}. */
export type LaravelRule = keyof typeof LARAVEL_RULES;

// major.minor as one comparable number; payloads consult the rules on every push.
const rank = (major: number, minor: number): number => major * 10000 + minor;
const rankOf = (version: string): number => {
  const [major, minor] = version.split('.').map(Number);
  return rank(major, minor);
};
const RULE_RANKS = Object.fromEntries(Object.entries(LARAVEL_RULES).map(([rule, v]) => [rule, rankOf(v)])) as Record<
  LaravelRule,
  number
>;
const parsed = new Map<string, LaravelRelease>();

/** One Laravel release, parsed from a {@link LaravelVersion}. */
export class LaravelRelease {
  private readonly rank: number;

  private constructor(
    readonly major: LaravelMajor,
    readonly minor: number,
  ) {
    this.rank = rank(major, minor);
  }

  /** Parse `version` (see LaravelVersion); anything else is an InvalidOptionError naming `option`. */
  static of(version: unknown, option = 'laravel'): LaravelRelease {
    if (version instanceof LaravelRelease) return version;
    const text = typeof version === 'number' ? String(version) : typeof version === 'string' ? version : undefined;
    // a number names a major only: 12.1 and 12.10 would be the same number
    const known =
      text === undefined || (typeof version === 'number' && text.includes('.')) ? undefined : parsed.get(text);
    if (known !== undefined) return known;
    const m = text === undefined ? null : /^(8|9|1[0-3])(?:\.(0|[1-9]\d?))?$/.exec(text);
    const major = m ? (Number(m[1]) as LaravelMajor) : undefined;
    if (!m || !MAJORS.includes(major!) || (typeof version === 'number' && m[2] !== undefined)) {
      throw new InvalidOptionError(
        option,
        `${LARAVEL_VERSION_RULE}, got ${JSON.stringify(version) ?? String(version)}`,
      );
    }
    const release = new LaravelRelease(major!, m[2] === undefined ? NEWEST_MINOR[major!] : Number(m[2]));
    if (parsed.size < 256) parsed.set(text!, release);
    return release;
  }

  /** Whether this release is `version` or newer (`'12.11'`). */
  atLeast(version: `${number}.${number}`): boolean {
    return this.rank >= rankOf(version);
  }

  /** Whether this release follows `rule`. */
  has(rule: LaravelRule): boolean {
    return this.rank >= RULE_RANKS[rule];
  }

  /** The payload shape this release writes. */
  get line(): LaravelLine {
    if (this.major >= 13) return 13;
    return this.has('createdAt') ? 12 : 8;
  }

  /** The version as the option would name it: the major when it was given alone, else `'major.minor'`. */
  get version(): LaravelVersion {
    return this.minor === NEWEST_MINOR[this.major] ? this.major : (`${this.major}.${this.minor}` as LaravelVersion);
  }

  /** `major.minor`, e.g. `12.67`. */
  toString(): string {
    return `${this.major}.${this.minor}`;
  }
}
