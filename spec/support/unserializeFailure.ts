// The error unserialize() throws for an input, for specs that check its message and offset.
import { expect } from 'chai';
import { UnserializeError } from '../../lib/errors';
import { unserialize } from '../../lib/php/unserialize';

/** Unserialize `input`, expecting an UnserializeError, and return it. */
export function unserializeFailure(input: string | Buffer): UnserializeError {
  try {
    unserialize(input);
  } catch (e) {
    expect(e).to.be.instanceOf(UnserializeError);
    return e as UnserializeError;
  }
  throw new Error(`unserialize(${JSON.stringify(String(input))}) did not throw`);
}
