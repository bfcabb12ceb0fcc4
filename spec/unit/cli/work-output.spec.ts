// WorkOutput's job lines without -v, which it keeps per job class and second: each shows the second it
// is written in, also when that second turns while the line is made.
import { expect } from 'chai';
import { EventEmitter } from 'events';
import { WorkOutput } from '../../../lib/cli/WorkOutput';
import type { RedisJob } from '../../../lib/jobs/RedisJob';
import type { Worker } from '../../../lib/Worker';

describe('WorkOutput', () => {
  const realNow = Date.now;
  afterEach(() => (Date.now = realNow));

  it('stamps each RUNNING and DONE line with the second it is written in, kept lines included', () => {
    const lines: string[] = [];
    const output = new WorkOutput({ out: (line: string) => lines.push(line), err: () => undefined } as never, {
      timezone: 'UTC',
      json: false,
      verbose: false,
      colors: false,
      width: 80,
    });
    const worker = new EventEmitter();
    output.attach(worker as unknown as Worker<RedisJob>, false);
    const job = {
      resolveName: () => 'App\\Jobs\\Noop',
      hasFailed: () => false,
      isReleased: () => false,
      isDeletedOrReleased: () => true,
      payload: () => ({ isObjectJob: true }),
    };
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
});
