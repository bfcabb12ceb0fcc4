// Laravel writes failed_at as Carbon::now() formatted `Y-m-d H:i:s` in the app timezone (config
// app.timezone), so the text larq stores must be rendered in that zone, not in UTC or the host's zone.
import { InvalidOptionError } from '../errors';

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Throws InvalidOptionError unless `timeZone` is an IANA zone name the runtime knows. */
export function checkTimeZone(timeZone: string, option = 'timezone'): void {
  try {
    formatterFor(timeZone);
  } catch {
    throw new InvalidOptionError(option, `unknown time zone ${JSON.stringify(timeZone)}`);
  }
}

/** PHP's `date('Y-m-d H:i:s')` of the instant `ms` (epoch milliseconds) in `timeZone`. */
export function formatDateTime(ms: number, timeZone: string): string {
  if (timeZone === 'UTC') return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
  const parts: Record<string, string> = {};
  for (const part of formatterFor(timeZone).formatToParts(new Date(ms))) parts[part.type] = part.value;
  // Years before 1000 or after 9999 cannot occur for "now"; padding keeps the shape fixed anyway.
  return `${parts.year.padStart(4, '0')}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
}

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    // en-US with h23 gives plain ASCII digits and a 00-23 hour, whatever the host locale.
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}
