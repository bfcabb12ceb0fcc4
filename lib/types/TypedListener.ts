// A queued listener declared by `larq types`. Laravel queues a ShouldQueue listener as a CallQueuedListener
// holding the listener's class name and its handle() arguments (Laravel `Dispatcher::queueHandler`, 13.x):
// the listener object itself never travels, its event does, so the declaration carries the event's.
import type { TypedPhpClass } from './TypedPhpClass';

/** A queued listener class: `View` is what handlers.listener() gives its handler (the CallQueuedListener view). */
export class TypedListener<View extends object, Event extends object, EventInput extends object> {
  /** Phantom: the view a handler of this listener receives (never set at run time). */
  declare readonly view: View;

  constructor(
    readonly className: string,
    /** The declaration of the event its handle() takes, null when it names no class. */
    readonly event: TypedPhpClass<Event, EventInput> | null,
    /** The hash of the PHP declaration this was generated from (its event's folded in). */
    readonly hash: string,
    /** Laravel's tuning the listener states as property defaults (tries, timeout, queue...), for dispatchListener. */
    readonly tuning?: Readonly<Record<string, unknown>>,
  ) {}
}

/** Declare a queued listener of a generated module (see TypedListener). */
export function typedListener<View extends object, Event extends object, EventInput extends object>(
  className: string,
  event: TypedPhpClass<Event, EventInput> | null,
  hash: string,
  tuning?: Readonly<Record<string, unknown>>,
): TypedListener<View, Event, EventInput> {
  return new TypedListener<View, Event, EventInput>(className, event, hash, tuning);
}
