// Laravel's `Illuminate\Queue\Middleware\SkipIfBatchCancelled` (10.x-13.x): a batched job whose batch was
// cancelled is skipped, which is not a failure (deleted, counted done, its chain carries on).
import { UnsupportedMiddlewareError } from '../errors';
import { registerMiddlewareDecoder } from './fromPayload';
import type { JobMiddleware, MiddlewareContext } from './JobMiddleware';

const CLASS = 'Illuminate\\Queue\\Middleware\\SkipIfBatchCancelled';

/** SkipIfBatchCancelled: reads the batch's `cancelled_at` from job_batches before the handler runs. */
export class SkipIfBatchCancelled implements JobMiddleware {
  readonly className = CLASS;

  async handle(ctx: MiddlewareContext, next: () => Promise<void>): Promise<void> {
    const batchId = ctx.job.command.get('batchId');
    if (typeof batchId === 'string' && batchId !== '') {
      const batches = ctx.services.batches;
      if (!batches)
        throw new UnsupportedMiddlewareError(ctx.job.payload.name, CLASS, 'no job_batches repository is configured');
      const batch = await batches.find(batchId);
      if (batch !== null && batch.cancelledAt !== null) return;
    }
    await next();
  }
}

/** Declare SkipIfBatchCancelled on a Node handler. */
export function skipIfBatchCancelled(): SkipIfBatchCancelled {
  return new SkipIfBatchCancelled();
}

registerMiddlewareDecoder(CLASS, () => new SkipIfBatchCancelled());
