// PHP's hash('xxh128', $text): XXH3-128 with seed 0, as 32 lower-case hex digits. Laravel 12.54+ names
// unique lock and debounce keys with it. hash-wasm computes the same digest (spec/unit/features/xxh128.spec.ts
// holds PHP's own outputs for every input-length branch of the algorithm).
import { createXXHash128, type IHasher } from 'hash-wasm';

let hasher: Promise<IHasher> | undefined;

/** The xxh128 digest of the UTF-8 bytes of `text`, as PHP's hash('xxh128', ...) prints it. */
export async function xxh128(text: string): Promise<string> {
  // one WebAssembly instance, made on first use; init/update/digest run synchronously, so calls never interleave
  const h = await (hasher ??= createXXHash128());
  return h.init().update(text).digest('hex');
}
