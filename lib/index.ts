// larq's public surface. Everything a user needs is named here; key builders, Lua scripts and other
// internals stay out so they can change without breaking anyone.

// Queues: produce, reserve, acknowledge, inspect (Laravel's RedisQueue).
export { RedisQueue, type InspectedJob, type BulkEntry } from './RedisQueue';
export {
  DEFAULT_REDIS_QUEUE_OPTIONS,
  reconnectOnReadOnly,
  type RedisQueueOptions,
  type RedisConnection,
  type QueueTelemetry,
} from './RedisQueueOptions';
export { RedisJob } from './jobs/RedisJob';
export type { JobInput, ObjectJob } from './jobs/dispatch';
export type { LaravelLine, LaravelVersion, LaravelMajor } from './LaravelLine';
export { LaravelRelease } from './LaravelLine';
export { laravelPrefix } from './redis/keys';

// Horizon mode: a queue that also writes what Laravel Horizon's listeners write (docs/horizon.md).
export { HorizonRedisQueue, type HorizonRedisQueueOptions, type FailureEvents } from './horizon/RedisQueue';
export { HorizonKeys } from './horizon/HorizonKeys';
export type { Microtime } from './horizon/microtime';
export { horizonPrefix, DEFAULT_HORIZON_TRIM, type HorizonOptions, type HorizonTrim } from './horizon/HorizonOptions';
export { MasterSupervisor, type SupervisedWorker } from './horizon/MasterSupervisor';

// Workers: run Laravel jobs in Node with Laravel's retry, timeout and failure rules.
export { createWorker, type CreateWorkerDeps } from './createWorker';
export { Worker, EXIT_SUCCESS, EXIT_ERROR, EXIT_MEMORY_LIMIT, type WorkerDeps } from './Worker';
export {
  DEFAULT_WORKER_OPTIONS,
  resolveWorkerOptions,
  type WorkerOptions,
  type OnTimeout,
  type OnHungHandler,
} from './WorkerOptions';
export type { AttemptState } from './worker/Attempt';
export {
  Handlers,
  LARAVEL_FEATURES,
  type HandlersOptions,
  type HandlersSummary,
  type LaravelFeature,
  type UnknownJobPolicy,
  type CommandHooks,
  type JobContext,
  type ObjectJobContext,
  type ObjectJobHandler,
  type StringJobHandler,
  type FailedHook,
} from './handlers/Handlers';
export type { WorkerEvents, WorkerEvent, JobEvent, WorkerStopReason, WorkerStopResult } from './events';
export type { RestartSignal } from './worker/CacheSignals';
export type { WorkerJob, WorkerQueue, WorkerCache, JobRunner, FailedJobLogger, AttemptAction } from './jobs/contracts';
export { calculateBackoff } from './backoff';
export type { MiddlewareOptions, HandlerHooks } from './handlers/Handlers';

// Laravel's job middleware and Redis limiters, sharing PHP's locks and counters.
export {
  WithoutOverlapping,
  withoutOverlapping,
  RateLimited,
  rateLimited,
  RateLimitedWithRedis,
  rateLimitedWithRedis,
  ThrottlesExceptions,
  throttlesExceptions,
  ThrottlesExceptionsWithRedis,
  throttlesExceptionsWithRedis,
  Skip,
  Release,
  SkipIfBatchCancelled,
  skipIfBatchCancelled,
  FailOnException,
  failOnException,
  DurationLimiter,
  ConcurrencyLimiter,
  LimiterTimeoutError,
  limit,
  UNLIMITED,
  supportedMiddlewareClasses,
} from './middleware';
export type {
  JobMiddleware,
  MiddlewareContext,
  MiddlewareServices,
  BatchLookup,
  Limit,
  LimiterResult,
  RateLimiterCallback,
  RedisLimiterConnection,
  WithoutOverlappingOptions,
  RateLimitedOptions,
  ThrottlesExceptionsOptions,
} from './middleware';

// Laravel's failed-job stores and cache stores.
export {
  createFailedJobProvider,
  DatabaseFailedJobProvider,
  FileFailedJobProvider,
  NullFailedJobProvider,
  formatException,
} from './failed';
export type {
  FailedJobProvider,
  FailedJobRecord,
  FailedJobProviderConfig,
  DatabaseFailedJobProviderOptions,
  FileFailedJobProviderOptions,
  FormatExceptionOptions,
} from './failed';
export { createCacheStore, RedisCacheStore, DatabaseCacheStore, ArrayCacheStore } from './cache';
export type {
  CacheStore,
  CacheLock,
  CacheValue,
  CacheConfig,
  CacheLaravelVersion,
  RedisCacheStoreOptions,
  DatabaseCacheStoreOptions,
  ArrayCacheStoreOptions,
} from './cache';

// The SQL connections of the failed-job, cache and batch stores: settings, or a driver client of yours.
export type {
  SqlClient,
  SqlConnectionConfig,
  SqlDialect,
  SqlValue,
  SqlRow,
  SqlRunner,
  MysqlSettings,
  PgsqlSettings,
  SqliteDatabaseLike,
  MysqlClientLike,
  PgClientLike,
  SqliteStatementLike,
  PgTypeParsers,
} from './sql/SqlClient';

// Laravel's job features across the language boundary: chains, batches, unique jobs, models, wrappers.
export * from './features';

// PHP values: build job objects for PHP, read the ones PHP sent.
export {
  phpClass,
  php,
  laravelJobTraits,
  queueableTrait,
  interactsWithQueueTrait,
  batchableTrait,
  PhpClass,
  PhpFloat,
  toPhp,
} from './php/builder';
export type {
  PropertySpec,
  PropertyDeclaration,
  PhpClassOptions,
  PhpTrait,
  DateTimeOptions,
  ModelOptions,
} from './php/builder';
export { serialize, serializeToBuffer } from './php/serialize';
export { unserialize } from './php/unserialize';
export { toPlain, phpClassOf, shadowedPropertiesOf, PHP_CLASS, type ShadowedProperty } from './php/view';
export { enumCase, isEnumOf } from './php/enumCase';
export { PhpArray, PhpObject, PhpEnum, PhpBytes, PhpReference, PhpCustomObject } from './php/values';
export type { PhpValue, PhpProperty, PhpArrayKey, Visibility } from './php/values';
export { Encrypter, type EncrypterCipher } from './php/Encrypter';

// `larq types`: the declarations a generated module is made of.
export { typedPhpClass, TypedPhpClass } from './types/TypedPhpClass';
export type {
  TypedPhpClassSpec,
  TypedProperty,
  PhpTypeKind,
  ReflectedValue,
  ModelInput,
  ModelsInput,
  PhpEnumCase,
  ModelIdentifierView,
  ModelsIdentifierView,
  PhpDateView,
  PhpArrayView,
  PhpArrayInput,
  PhpDateInput,
} from './types/TypedPhpClass';
export { typedListener, TypedListener } from './types/TypedListener';

// Payloads: Laravel's JSON envelope, byte for byte.
export { phpJsonEncode, phpJsonDecode, type PhpJsonEncodeOptions } from './payload/json';
export { createObjectPayload, createStringPayload } from './payload/createPayload';
export { parsePayload, retryPayload, type RetryPayloadOptions } from './payload/Payload';
export {
  CALL_QUEUED_HANDLER,
  type JobPayload,
  type ObjectJobSpec,
  type StringJobSpec,
  type PayloadOptions,
  type BackoffSpec,
} from './payload/types';

// Traces and metrics (optional peers: @opentelemetry/api, prom-client).
export { JobTracing, type JobTracingOptions } from './telemetry/JobTracing';
export { JobMetrics, type JobMetricsOptions, type PrometheusRegistry } from './telemetry/JobMetrics';
export { serveMetrics, type MetricsServer } from './telemetry/serveMetrics';

// Time and errors.
export { FakeClock, systemClock, type Clock } from './clock';
export {
  LarqError,
  InvalidPayloadError,
  UnserializeError,
  SerializeError,
  DecryptError,
  EncryptError,
  InvalidOptionError,
  PhpBuildError,
  MissingEncrypterError,
  MissingDependencyError,
  MaxAttemptsExceededError,
  TimeoutExceededError,
  ManuallyFailedError,
  UnknownJobError,
  PhpOnlyJobError,
  CacheValueError,
  UnconfirmedWriteError,
  BulkPartlyPushedError,
  RedisUnavailableError,
  PhpEnumCaseError,
  FailedJobNotRecordedError,
  AttemptOverError,
  HungHandlerError,
  JobAlreadyRunningError,
  UnreadableFailedJobFileError,
  FileLockError,
  CommandClassMismatchError,
  UnsupportedMiddlewareError,
  UnknownRateLimiterError,
} from './errors';
export { UntransliterableTitleError } from './support/Str';
