// Exported constants are the same for every user of the package: a caller cannot change them for the
// rest of the process (frozen objects throw on assignment in strict-mode code, as every module is).
import { expect } from 'chai';
import { LARAVEL_FEATURES, php, PhpFloat } from '../../lib';

describe('exported constants', () => {
  it('LARAVEL_FEATURES cannot be changed at run time', () => {
    const features = LARAVEL_FEATURES as unknown as string[];
    expect(() => features.push('retry')).to.throw(TypeError);
    expect(() => {
      features[0] = 'retry';
    }).to.throw(TypeError);
    expect([...LARAVEL_FEATURES]).to.deep.equal(['debounce', 'models', 'unique', 'chain', 'batch']);
  });

  it('the php helpers cannot be replaced at run time', () => {
    const helpers = php as unknown as Record<string, unknown>;
    expect(() => {
      helpers.float = () => 'replaced';
    }).to.throw(TypeError);
    expect(() => {
      helpers.extra = 1;
    }).to.throw(TypeError);
    expect(php.float(1)).to.be.instanceOf(PhpFloat);
    expect(helpers.extra).to.equal(undefined);
  });
});
