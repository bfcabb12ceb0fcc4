// The most arguments one command may carry, the command's name included. Managed servers cap it well
// below Redis' own limit (ElastiCache Serverless refuses a command of more than 3,999), so every command
// larq builds from a caller's list (a bulk push's RPUSH, the cache's MGET) is cut to fit, and every
// command a script issues is too.

/** At most this many arguments in one command, its name included (ElastiCache Serverless' limit). */
export const MAX_COMMAND_ARGUMENTS = 3999;

/** `items` cut into consecutive slices of at most `size` items each (none for an empty list). */
export function slices<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let from = 0; from < items.length; from += size) out.push(items.slice(from, from + size));
  return out;
}
