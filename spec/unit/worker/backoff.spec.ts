import { expect } from 'chai';
import { calculateBackoff, phpIntval } from '../../../lib/backoff';

describe('calculateBackoff (Laravel Worker::calculateBackoff)', () => {
  it('takes entry attempts-1 of the job backoff, repeating the last one', () => {
    expect([1, 2, 3, 4, 5].map((a) => calculateBackoff('1,5,10', 0, a))).to.deep.equal([1, 5, 10, 10, 10]);
  });

  it('falls back to the option when the job has none, as a number or a list', () => {
    expect(calculateBackoff(null, 7, 1)).to.equal(7);
    expect(calculateBackoff(null, 7, 4)).to.equal(7);
    expect([1, 2, 3].map((a) => calculateBackoff(null, '2,4', a))).to.deep.equal([2, 4, 4]);
  });

  it('prefers the job backoff over the option, even "0"', () => {
    expect(calculateBackoff('0', 30, 1)).to.equal(0);
  });

  it('parses entries like PHP (int)', () => {
    expect(calculateBackoff(' 10, 20', 0, 1)).to.equal(10);
    expect(calculateBackoff(' 10, 20', 0, 2)).to.equal(20);
    expect(calculateBackoff('abc', 5, 1)).to.equal(0);
    expect(calculateBackoff('5s,', 0, 1)).to.equal(5);
    expect(calculateBackoff('5s,', 0, 2)).to.equal(0); // the empty last entry
  });
});

describe('phpIntval', () => {
  const cases: [string, number][] = [
    ['10', 10],
    [' 10', 10],
    ['\t\n 7', 7],
    ['12abc', 12],
    ['abc', 0],
    ['', 0],
    ['1.9', 1],
    ['-3', -3],
    ['+4', 4],
    ['-0', 0],
    ['1e3', 1000],
    ['.5', 0],
    ['0x1A', 0],
    ['10 ', 10],
  ];
  for (const [text, value] of cases) {
    it(`(int) ${JSON.stringify(text)} is ${value}`, () => {
      expect(Object.is(phpIntval(text), value)).to.equal(true, `got ${phpIntval(text)}`);
    });
  }
});
