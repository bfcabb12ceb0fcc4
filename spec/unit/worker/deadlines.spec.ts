// Deadlines: one re-armable timer over the worker's sleep, firing at the earliest time it was given.
import { expect } from 'chai';
import { Deadlines } from '../../../lib/worker/Deadlines';
import { tick, VirtualTime } from '../../support/fakeQueue';

describe('Deadlines: one timer for every deadline', () => {
  it('fires at the earliest time given, re-arms for an earlier one, and follows what the handler returns', async () => {
    const time = new VirtualTime();
    const t0 = time.clock.nowMs();
    const fired: number[] = [];
    let plan = [t0 + 7000, Infinity];
    const deadlines = new Deadlines(time.clock, time.sleep, (now) => {
      fired.push(now - t0);
      return plan.shift() ?? Infinity;
    }).start();
    deadlines.fireBy(t0 + 10_000);
    deadlines.fireBy(t0 + 20_000); // later than the armed time: nothing changes
    deadlines.fireBy(t0 + 5000); // earlier: re-armed
    for (let i = 0; i < 50 && fired.length < 2; i++) await tick(1);
    expect(fired).to.deep.equal([5000, 7000]);
    // idle now (the handler said Infinity): nothing fires until it is given a time again
    await tick(5);
    expect(fired).to.deep.equal([5000, 7000]);
    plan = [];
    deadlines.fireBy(time.clock.nowMs() + 1000);
    for (let i = 0; i < 50 && fired.length < 3; i++) await tick(1);
    expect(fired).to.deep.equal([5000, 7000, 8000]);
    await deadlines.stop();
  });

  it('stop() ends a sleep in progress and the timer fires no more', async () => {
    const time = new VirtualTime();
    let fired = 0;
    const deadlines = new Deadlines(time.clock, time.sleep, () => (fired++, Infinity)).start();
    deadlines.fireBy(time.clock.nowMs() + 60_000);
    await deadlines.stop();
    await tick(5);
    expect(fired).to.equal(0);
  });
});
