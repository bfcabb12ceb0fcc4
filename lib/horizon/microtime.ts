// Horizon's timestamps and scores: `str_replace(',', '.', microtime(true))`, a float turned into a string
// by PHP, which writes `precision` (14) significant digits with trailing zeros dropped.
import type { Clock } from '../clock';

/** Seconds since the epoch with sub-millisecond digits where the clock has them. */
export type Microtime = () => number;

/** The system's microtime(true): the wall clock's origin plus the monotonic clock's fraction. */
export const systemMicrotime: Microtime = () => (performance.timeOrigin + performance.now()) / 1000;

/** microtime(true) read from a larq Clock (milliseconds only): for specs with a fake clock. */
export function clockMicrotime(clock: Clock): Microtime {
  return () => clock.nowMs() / 1000;
}

/** PHP's `(string) $float` with precision 14: e.g. 1795741336.1743, -1795741336.1743, 12.5, 3. */
export function phpFloatString(n: number): string {
  if (n === 0) return '0';
  const fixed = n.toPrecision(14);
  // toPrecision switches to exponent notation only far outside the range of timestamps and runtimes.
  if (fixed.includes('e')) return String(Number(fixed));
  return fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed;
}
