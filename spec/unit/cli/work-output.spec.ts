// WorkOutput's job lines without -v, which it keeps per job class and second: each shows the second it
// is written in, also when that second turns while the line is made.
import { expect } from 'chai';
import { EventEmitter } from 'events';
import { WorkOutput } from '../../../lib/cli/WorkOutput';
import type { RedisJob } from '../../../lib/jobs/RedisJob';
import type { Worker } from '../../../lib/Worker';

// A worker's events, printed by a WorkOutput without -v into `lines`.
function attached(lines: string[]): EventEmitter {
  const output = new WorkOutput({ out: (line: string) => lines.push(line), err: () => undefined } as never, {
    timezone: 'UTC',
    json: false,
    verbose: false,
    colors: false,
    width: 80,
  });
  const worker = new EventEmitter();
  output.attach(worker as unknown as Worker<RedisJob>, false);
  return worker;
}

// What WorkOutput reads of an object job that ran and deleted itself.
const noopJob = () => ({
  resolveName: () => 'App\\Jobs\\Noop',
  hasFailed: () => false,
  isReleased: () => false,
  isDeletedOrReleased: () => true,
  payload: () => ({ isObjectJob: true }),
});

// The run times that the DONE lines show for jobs run one after another within one second, taking
// `runTimes` ms each; every DONE line is checked to fill the 80 columns.
function doneTimes(runTimes: readonly number[]): string[] {
  const lines: string[] = [];
  const worker = attached(lines);
  Date.now = () => 1767225600000;
  const realPerformanceNow = performance.now;
  let now = 0;
  performance.now = () => now;
  try {
    for (const ms of runTimes) {
      const job = noopJob();
      now = 100;
      worker.emit('JobProcessing', { job });
      now = 100 + ms;
      worker.emit('JobProcessed', { job });
    }
  } finally {
    performance.now = realPerformanceNow;
  }
  const done = lines.filter((l) => l.endsWith(' DONE'));
  for (const line of done) expect(line).to.have.length(80 - 2);
  return done.map((l) => /(\S+) DONE$/.exec(l)![1]);
}

describe('WorkOutput', () => {
  const realNow = Date.now;
  afterEach(() => (Date.now = realNow));

  it('stamps each RUNNING and DONE line with the second it is written in, kept lines included', () => {
    const lines: string[] = [];
    const worker = attached(lines);
    const job = noopJob();
    // 2026-01-01 00:00:00.999 on the first read of the clock, 00:00:01.000 on any read after it.
    const second = 1767225600000;
    let reads = 0;
    Date.now = () => (reads++ === 0 ? second + 999 : second + 1000);
    worker.emit('JobProcessing', { job });
    Date.now = () => second + 1500;
    worker.emit('JobProcessing', { job });
    Date.now = () => second + 500; // a line of the first second again: the kept one is right for it
    worker.emit('JobProcessing', { job });
    expect(lines.map((l) => l.slice(0, 21))).to.deep.equal([
      '  2026-01-01 00:00:00',
      '  2026-01-01 00:00:01',
      '  2026-01-01 00:00:00',
    ]);
  });

  it("writes each DONE line's run time as Laravel's runTimeForHumans: ms with two decimals, seconds from 1 s", () => {
    // the same run times twice: the second line of each is the one kept for the second
    expect(doneTimes([0.004, 3.456, 12.3, 7.05, 999.996, 1500, 0.004, 3.456, 12.3, 1500])).to.deep.equal([
      ...['0.00ms', '3.46ms', '12.30ms', '7.05ms', '1000.00ms', '1.50s'],
      ...['0.00ms', '3.46ms', '12.30ms', '1.50s'],
    ]);
  });

  it('shows each job its own run time when one second holds more run times than are kept', () => {
    // 0.00 to 12.99 ms, twice over: past the lines kept for the second, then each again
    const hundredths = [...Array(1300).keys(), ...Array(1300).keys()];
    expect(doneTimes(hundredths.map((h) => h / 100))).to.deep.equal(hundredths.map((h) => `${(h / 100).toFixed(2)}ms`));
  });
});
