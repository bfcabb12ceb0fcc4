// Laravel's job features for Node steps in Laravel flows: chains, batches, unique jobs, models and the
// wrapper jobs. Each feature plugs into Handlers through CommandHooks:
//   new Handlers({ hooks: [modelHooks(...), uniqueJobs(...), chainHooks(queue), batchHooks(repo)] })
// (this order follows CallQueuedHandler: models on unserialize, unique lock, then chain, then batch).
export {
  chainHooks,
  dispatchChain,
  nextInChain,
  type ChainOptions,
  type ChainHooksOptions,
  type ChainWarning,
  type QueueResolver,
} from './chain';
export {
  BatchRepository,
  batchHooks,
  dispatchBatch,
  orderedUuid,
  type BatchRecord,
  type BatchUpdate,
  type BatchOptions,
  type BatchRepositoryOptions,
} from './batch';
export {
  uniqueJobs,
  uniqueLocksOnFailure,
  dispatchUnique,
  uniqueLockName,
  type UniqueJobSpec,
  type UniqueOptions,
  type UndeclaredUniqueOptions,
} from './unique';
export { debouncedJobs, debounceKey, type DebouncedJobSpec, type DebounceOptions } from './debounce';
export {
  modelHooks,
  modelReference,
  modelReferences,
  ModelNotFoundError,
  MODEL_IDENTIFIER,
  type ModelReference,
  type ModelResolver,
  type ModelHooksOptions,
} from './models';
export {
  queuedListener,
  queuedNotification,
  queuedMailable,
  broadcastEvent,
  callQueuedListener,
  dispatchListener,
  CALL_QUEUED_LISTENER,
  SEND_QUEUED_NOTIFICATIONS,
  SEND_QUEUED_MAILABLE,
  BROADCAST_EVENT,
  type QueuedListenerView,
  type QueuedNotificationView,
  type QueuedMailableView,
  type BroadcastEventView,
  type QueuedListenerOptions,
} from './wrappers';
export {
  sendQueuedNotifications,
  dispatchNotification,
  withNotificationId,
  type NotifiableModel,
  type QueuedNotificationOptions,
} from './SendQueuedNotifications';
export { sendQueuedMailable, dispatchMailable, type QueuedMailableOptions } from './SendQueuedMailable';
