// The worker's slot list: what it holds after any sequence of adds and removes.
import { expect } from 'chai';
import { SlotList } from '../../../lib/worker/SlotList';

describe('SlotList', () => {
  it('holds what was added and not removed, whatever the order of removal', () => {
    const list = new SlotList<string>();
    const entries = ['a', 'b', 'c', 'd', 'e'].map((v) => list.add(v));
    list.remove(entries[1]);
    list.remove(entries[4]);
    list.remove(entries[0]);
    expect(list.size).to.equal(2);
    expect(list.values().sort()).to.deep.equal(['c', 'd']);
    list.add('f');
    list.remove(entries[3]);
    expect(list.values().sort()).to.deep.equal(['c', 'f']);
  });

  it('ignores a second removal of the same entry, even after its cell was reused', () => {
    const list = new SlotList<string>();
    const a = list.add('a');
    list.add('b');
    list.remove(a);
    list.add('c'); // takes the cell a had
    list.remove(a);
    expect(list.values().sort()).to.deep.equal(['b', 'c']);
  });

  it('keeps the same values as a Set through a long random run', () => {
    const list = new SlotList<number>();
    const live = new Map<number, ReturnType<SlotList<number>['add']>>();
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 5000; i++) {
      if (live.size > 0 && next() % 3 === 0) {
        const keys = [...live.keys()];
        const key = keys[next() % keys.length];
        list.remove(live.get(key)!);
        live.delete(key);
      } else live.set(i, list.add(i));
    }
    expect(list.size).to.equal(live.size);
    expect(list.values().sort((x, y) => x - y)).to.deep.equal([...live.keys()].sort((x, y) => x - y));
  });

  it('gives a copy of its values, so the list may change while a caller goes through them', () => {
    const list = new SlotList<string>();
    const a = list.add('a');
    list.add('b');
    const seen: string[] = [];
    for (const v of list.values()) {
      seen.push(v);
      list.remove(a);
      list.add('x');
    }
    expect(seen.sort()).to.deep.equal(['a', 'b']);
  });
});
