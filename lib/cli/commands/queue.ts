// `larq size`, `larq monitor` and `larq clear`: artisan's queue:monitor and queue:clear on the app's queues.
import { createInterface } from 'readline';
import { RedisQueue } from '../../RedisQueue';
import { configFor, numberFlag, parse, UsageError } from '../args';

/** Help texts, by command. */
export const QUEUE_HELP = {
  size: `Usage: larq size [queues]

Print each queue's size (waiting + delayed + reserved, as Laravel's size()) and its parts.
  queues    comma-separated queue names (default REDIS_QUEUE or "default")`,
  monitor: `Usage: larq monitor [queues] [--max=1000]

queue:monitor: each queue's size, with ALERT when it reaches --max.
  queues    comma-separated, each "queue" or "connection:queue" (default REDIS_QUEUE or "default")
  --max=N   the size that raises an alert (default 1000)`,
  clear: `Usage: larq clear [connection] [--queue=NAME] [--force]

queue:clear: delete every job of a queue, reserved ones included.
  --queue=NAME   the queue (default REDIS_QUEUE or "default")
  --force        do not ask for confirmation (needed when not on a terminal)`,
};

/** `larq size` and `larq monitor`. */
export async function size(command: 'size' | 'monitor', argv: string[], out: (line: string) => void): Promise<number> {
  const p = parse(command, argv, command === 'monitor' ? { max: { type: 'string' } } : {});
  if (p.values.help) return out(QUEUE_HELP[command]), 0;
  const max = numberFlag(command, p, 'max', 1000);
  const config = configFor(p);
  const names = (p.positionals[0] ?? config.queue.queue).split(',').map((q) => (q.includes(':') ? q.slice(q.indexOf(':') + 1) : q));
  const queue = new RedisQueue(config.queue);
  try {
    out('queue                          size   pending   delayed  reserved  status');
    let alerts = 0;
    for (const name of names) {
      const [total, pending, delayed, reserved] = await Promise.all([queue.size(name), queue.pendingSize(name), queue.delayedSize(name), queue.reservedSize(name)]);
      const alert = command === 'monitor' && total >= max;
      if (alert) alerts++;
      out(`${name.padEnd(28)} ${pad(total, 6)} ${pad(pending, 9)} ${pad(delayed, 9)} ${pad(reserved, 9)}  ${alert ? 'ALERT' : 'OK'}`);
    }
    return command === 'monitor' && alerts > 0 ? 1 : 0;
  } finally {
    await queue.close();
  }
}

/** `larq clear`. */
export async function clear(argv: string[], out: (line: string) => void): Promise<number> {
  const p = parse('clear', argv, { queue: { type: 'string' }, force: { type: 'boolean' } });
  if (p.values.help) return out(QUEUE_HELP.clear), 0;
  const config = configFor(p);
  const name = (p.values.queue as string | undefined) ?? config.queue.queue;
  if (!p.values.force) {
    if (!process.stdin.isTTY) throw new UsageError(`larq clear: refusing to clear "${name}" without --force when not on a terminal`);
    if (!(await confirm(`Clear every job of queue "${name}" on ${config.queue.prefix}? [y/N] `))) return out('Cancelled.'), 1;
  }
  const queue = new RedisQueue(config.queue);
  try {
    out(`Cleared ${await queue.clear(name)} jobs from the [${name}] queue`);
    return 0;
  } finally {
    await queue.close();
  }
}

function pad(n: number, width: number): string {
  return String(n).padStart(width);
}

function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  return new Promise((resolve) => rl.question(question, (answer) => (rl.close(), resolve(/^y(es)?$/i.test(answer.trim())))));
}
