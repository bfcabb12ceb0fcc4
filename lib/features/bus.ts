// How the features hand a job object to a queue, as Laravel's bus does: the object's `connection` picks
// the queue connection, `queue` the name, `delay` a later() push.
import type { ObjectJob } from '../jobs/dispatch';
import type { LaravelLine } from '../LaravelLine';
import type { PhpValue } from '../php/values';
import type { RedisQueue } from '../RedisQueue';

/** The queue a job goes to, by its `connection` property (null: the default connection). */
export type QueueResolver = RedisQueue | ((connectionName: string | null) => RedisQueue);

/** The queue of a connection name (a job's `connection` property; empty means the default). */
export function resolve(queues: QueueResolver, connection: PhpValue | undefined): RedisQueue {
  const name = typeof connection === 'string' && connection !== '' ? connection : null;
  return typeof queues === 'function' ? queues(name) : queues;
}

/** The payload shape of the queue a connection resolves to (13 when it cannot tell). */
export function lineOf(queues: QueueResolver, connection: PhpValue | undefined): LaravelLine {
  return (resolve(queues, connection) as Partial<RedisQueue>).options?.laravel.line ?? 13;
}

/** Dispatch a job object as the bus does: its `connection` picks the queue, `queue` the name, `delay` later(). */
export async function dispatchObject(queues: QueueResolver, job: ObjectJob): Promise<string> {
  const command = job.command;
  const queue = resolve(queues, command.get('connection'));
  const name = command.get('queue');
  const queueName = typeof name === 'string' && name !== '' ? name : null;
  const delay = command.get('delay');
  const seconds = typeof delay === 'bigint' ? Number(delay) : typeof delay === 'number' ? delay : 0;
  if (seconds > 0) return queue.later(seconds, job, queueName);
  return queue.push(job, queueName);
}
