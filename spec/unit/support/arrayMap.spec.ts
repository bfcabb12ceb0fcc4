// ArrayMap and ArraySet: the Map and Set methods the worker's bookkeeping uses, kept in arrays (see
// lib/support/ArrayMap.ts for why).
import { expect } from 'chai';
import { ArrayMap, ArraySet } from '../../../lib/support/ArrayMap';

describe('ArrayMap', () => {
  it('gets, replaces and deletes by key as a Map does', () => {
    const map = new ArrayMap<string, number>();
    map.set('a', 1).set('b', 2).set('c', 3).set('b', 20);
    expect(map.size).to.equal(3);
    expect([map.get('a'), map.get('b'), map.get('c'), map.get('d')]).to.deep.equal([1, 20, 3, undefined]);
    expect(map.delete('a')).to.equal(true);
    expect(map.delete('a')).to.equal(false);
    expect(map.has('a')).to.equal(false);
    expect(map.size).to.equal(2);
    expect(new Map(map.entries())).to.deep.equal(
      new Map([
        ['b', 20],
        ['c', 3],
      ]),
    );
  });

  it('compares object keys by identity', () => {
    const [one, two] = [{ id: 1 }, { id: 1 }];
    const map = new ArrayMap<object, string>().set(one, 'one');
    expect(map.get(two)).to.equal(undefined);
    expect(map.get(one)).to.equal('one');
  });

  it('hands out a copy to iterate, so members may leave meanwhile', () => {
    const map = new ArrayMap<number, number>();
    for (let i = 0; i < 5; i++) map.set(i, i * 10);
    const seen: number[] = [];
    for (const [key] of map.entries()) {
      seen.push(key);
      map.delete(key);
    }
    expect(seen.sort()).to.deep.equal([0, 1, 2, 3, 4]);
    expect(map.size).to.equal(0);
    expect(map.keys()).to.deep.equal([]);
  });
});

describe('ArraySet', () => {
  it('adds each member once and deletes it as a Set does', () => {
    const [a, b, c] = [{}, {}, {}];
    const set = new ArraySet<object>().add(a).add(b).add(a).add(c);
    expect(set.size).to.equal(3);
    expect(set.delete(b)).to.equal(true);
    expect(set.delete(b)).to.equal(false);
    expect([set.has(a), set.has(b), set.has(c)]).to.deep.equal([true, false, true]);
    expect([...set]).to.have.members([a, c]);
  });

  it('iterates a copy, so members may leave meanwhile', () => {
    const members = [1, 2, 3, 4].map((id) => ({ id }));
    const set = new ArraySet<{ id: number }>();
    for (const m of members) set.add(m);
    const seen: number[] = [];
    for (const m of set) {
      seen.push(m.id);
      set.delete(m);
    }
    expect(seen.sort()).to.deep.equal([1, 2, 3, 4]);
    expect(set.size).to.equal(0);
  });
});
