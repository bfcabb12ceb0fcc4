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
    const lines: string[] = [];
    const worker = attached(lines);
    Date.now = () => 1767225600000;
    const realPerformanceNow = performance.now;
    let now = 0;
    performance.now = () => now;
    try {
      // the same run times twice: the second line of each is the one kept for the second
      for (const ms of [0.004, 3.456, 12.3, 7.05, 999.996, 1500, 0.004, 3.456, 12.3, 1500]) {
        const j = noopJob();
        now = 100;
        worker.emit('JobProcessing', { job: j });
        now = 100 + ms;
        worker.emit('JobProcessed', { job: j });
      }
    } finally {
      performance.now = realPerformanceNow;
    }
    const times = lines.filter((l) => l.endsWith(' DONE')).map((l) => /(\S+) DONE$/.exec(l)![1]);
    expect(times).to.deep.equal([
      ...['0.00ms', '3.46ms', '12.30ms', '7.05ms', '1000.00ms', '1.50s'],
      ...['0.00ms', '3.46ms', '12.30ms', '1.50s'],
    ]);
    for (const line of lines.filter((l) => l.endsWith(' DONE'))) expect(line).to.have.length(80 - 2);
  });

  it('shows each job its own run time when one second holds more run times than are kept', () => {
    const lines: string[] = [];
    const worker = attached(lines);
    Date.now = () => 1767225600000;
    const realPerformanceNow = performance.now;
    let now = 0;
    performance.now = () => now;
    // 0.00 to 12.99 ms, twice over: past the lines kept for the second, then each again
    const hundredths = [...Array(1300).keys(), ...Array(1300).keys()];
    try {
      for (const h of hundredths) {
        const j = noopJob();
        now = 100;
        worker.emit('JobProcessing', { job: j });
        now = 100 + h / 100;
        worker.emit('JobProcessed', { job: j });
      }
    } finally {
      performance.now = realPerformanceNow;
    }
    const times = lines.filter((l) => l.endsWith(' DONE')).map((l) => /(\S+) DONE$/.exec(l)![1]);
    expect(times).to.deep.equal(hundredths.map((h) => `${(h / 100).toFixed(2)}ms`));
  });
});
