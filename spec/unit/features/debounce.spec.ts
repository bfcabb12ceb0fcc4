// debounceKey as DebounceLock::getKey writes it (13.6+; queued listeners 13.26+), and the worker-side
// check on an in-memory cache: a superseded owner deletes the job unrun, a matching or missing one runs it.
import { expect } from 'chai';
import { ArrayCacheStore } from '../../../lib/cache/ArrayCacheStore';
import { debounceKey, debouncedJobs } from '../../../lib/features/debounce';
import type { ObjectJobContext } from '../../../lib/handlers/Handlers';
import { PhpObject, type PhpValue } from '../../../lib/php/values';

// PHP: hash('xxh128', 'App\Listeners\SendShipmentNotification')
const LISTENER_XXH128 = '10f23769a1493ccdbe4686f92002d55c';

const object = (className: string, props: Record<string, PhpValue>) =>
  new PhpObject(
    className,
    Object.entries(props).map(([name, value]) => ({ name, visibility: 'public' as const, value })),
  );

describe('debounced jobs (13.6+)', () => {
  it('names the key by class and debounceId, or by the xxh128 of displayName() (queued listeners: the listener class)', async () => {
    expect(await debounceKey(object('App\\Jobs\\Sync', { debounceId: 'd1' }))).to.equal(
      'laravel_debounced_job:App\\Jobs\\Sync:d1',
    );
    expect(await debounceKey(object('App\\Jobs\\Sync', { debounceId: 5n }))).to.equal(
      'laravel_debounced_job:App\\Jobs\\Sync:5',
    );
    expect(await debounceKey(object('App\\Jobs\\Sync', {}))).to.equal('laravel_debounced_job:App\\Jobs\\Sync:');
    const listener = object('Illuminate\\Events\\CallQueuedListener', {
      class: 'App\\Listeners\\SendShipmentNotification',
      debounceId: 'o-7',
    });
    expect(await debounceKey(listener)).to.equal(`laravel_debounced_job:${LISTENER_XXH128}:o-7`);
    expect(
      await debounceKey(object('App\\Jobs\\Sync', {}), {
        displayName: () => 'App\\Listeners\\SendShipmentNotification',
        debounceId: () => 'x',
      }),
    ).to.equal(`laravel_debounced_job:${LISTENER_XXH128}:x`);
  });

  it('deletes a superseded job unrun; runs the current owner, a missing key, and jobs without an owner', async () => {
    const cache = new ArrayCacheStore();
    await cache.put('laravel_debounced_job:App\\Jobs\\Sync:d1', 'owner-2', 300);
    const seen: string[] = [];
    const hooks = debouncedJobs(cache, { onDebounced: (_job, c) => void seen.push(String(c.get('debounceOwner'))) });
    const run = async (props: Record<string, PhpValue>) => {
      const deleted: boolean[] = [];
      const ctx = {
        command: object('App\\Jobs\\Sync', props),
        job: { delete: async () => void deleted.push(true) },
      } as unknown as ObjectJobContext;
      return [await hooks.beforeHandle!(ctx), deleted.length];
    };
    expect(await run({ debounceId: 'd1', debounceOwner: 'owner-1' })).to.deep.equal([false, 1]);
    expect(await run({ debounceId: 'd1', debounceOwner: 'owner-2' })).to.deep.equal([undefined, 0]);
    expect(await run({ debounceId: 'gone', debounceOwner: 'owner-1' })).to.deep.equal([undefined, 0]);
    expect(await run({ debounceId: 'd1', debounceOwner: '' })).to.deep.equal([undefined, 0]);
    expect(await run({ debounceId: 'd1' })).to.deep.equal([undefined, 0]);
    expect(seen).to.deep.equal(['owner-1']);
  });
});
