// The job payload: PHP-exact JSON, building payloads for PHP workers, and reading any Laravel payload.
export { phpJsonEncode, phpJsonDecode, type PhpJsonEncodeOptions } from './json';
export { createObjectPayload, createStringPayload, randomJobId } from './createPayload';
export { parsePayload, rewritePayload, withAttempts, retryPayload, type RetryPayloadOptions } from './Payload';
export {
  CALL_QUEUED_HANDLER,
  type LaravelLine,
  type BackoffSpec,
  type ObjectJobSpec,
  type StringJobSpec,
  type PayloadOptions,
  type JobPayload,
} from './types';
