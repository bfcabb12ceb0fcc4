// failJob and FailureRecorder (issue 21, finding 7): a failure is recorded before the job is deleted; a
// store that refuses sends the job to larq's failed list in Redis (or leaves it reserved), naming it; a
// store that keeps failing is tried again only after a pause, so failing jobs do not each wait on it.
import { expect } from 'chai';
import { FailedJobNotRecordedError } from '../../../lib/errors';
import { decodeFailedEntry } from '../../../lib/failed/FailedList';
import type { FailedJobLogger, WorkerJob } from '../../../lib/jobs/contracts';
import { failJob, FailureRecorder } from '../../../lib/worker/fail';

/** A job that logs what is done to it, with or without a failed list to move to. */
function job(
  log: string[],
  opts: { uuid?: string | null; redis?: 'ok' | 'down' | 'none'; payload?: string | Buffer } = {},
): WorkerJob {
  let deleted = false;
  let failed = false;
  const payload = opts.payload ?? `{"uuid":"${opts.uuid ?? 'u-1'}","job":"J","attempts":0}`;
  const base = {
    getRawBody: () => payload.toString(),
    getRawBytes: () => payload,
    uuid: () => (opts.uuid === undefined ? 'u-1' : opts.uuid),
    resolveName: () => 'App\\Jobs\\Boom',
    getQueue: () => 'default',
    getConnectionName: () => 'redis',
    isDeleted: () => deleted,
    markAsFailed: () => void (failed = true),
    hasFailed: () => failed,
    delete: async () => {
      deleted = true;
      log.push('delete');
    },
  };
  const move = async (entry: Buffer) => {
    if (opts.redis === 'down') throw new Error('redis down');
    deleted = true;
    log.push(`move ${entry.toString('latin1')}`);
  };
  return (opts.redis === 'none' ? base : { ...base, moveToFailedList: move }) as unknown as WorkerJob;
}

function store(log: string[], state: { down: boolean }): FailedJobLogger {
  return {
    log: async (_c, _q, payload) => {
      log.push(state.down ? 'log refused' : `log ${payload.toString()}`);
      if (state.down) throw new Error('table failed_jobs is missing');
    },
  };
}

describe('failJob: record first, then delete', () => {
  const runner = { run: async () => undefined };

  it('writes the record before deleting the job, then the hook and JobFailed', async () => {
    const log: string[] = [];
    const recorder = new FailureRecorder(store(log, { down: false }));
    await failJob(job(log), new Error('boom'), { ...runner, failed: () => void log.push('hook') }, recorder, {
      jobFailed: () => void log.push('JobFailed'),
      report: (e) => void log.push(`report ${(e as Error).message}`),
    });
    expect(log).to.deep.equal(['log {"uuid":"u-1","job":"J","attempts":0}', 'delete', 'hook', 'JobFailed']);
  });

  it('moves the job to the failed list with its reason when the store refuses, and names it', async () => {
    const log: string[] = [];
    const reports: unknown[] = [];
    const bytes = Buffer.from([0x7b, 0x22, 0x75, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]); // {"u":"<ff>"}
    const recorder = new FailureRecorder(store(log, { down: true }), () => 1_700_000_000_000);
    await failJob(job(log, { uuid: null, payload: bytes }), new Error('boom'), runner, recorder, {
      jobFailed: () => undefined,
      report: (e) => void reports.push(e),
    });
    expect(log[0]).to.equal('log refused');
    expect(log).to.not.include('delete');
    const moved = log.find((l) => l.startsWith('move '))!;
    const entry = decodeFailedEntry(Buffer.from(moved.slice(5), 'latin1'), 'failed');
    expect(entry.payload.equals(bytes)).to.equal(true);
    expect(entry.header).to.include({
      connection: 'redis',
      queue: 'default',
      reason: 'table failed_jobs is missing',
      failed_at: '2023-11-14 22:13:20',
    });
    expect(entry.header!.exception).to.match(/^Error: boom/);
    const named = reports.find((r) => r instanceof FailedJobNotRecordedError) as FailedJobNotRecordedError;
    expect(named.keptIn).to.equal('redis');
    expect(named.uuid)
      .to.equal(entry.header!.uuid)
      .and.match(/^[0-9a-f-]{36}$/);
    expect(named.message)
      .to.contain(named.uuid)
      .and.contain('App\\Jobs\\Boom')
      .and.contain('table failed_jobs is missing');
  });

  for (const redis of ['down', 'none'] as const) {
    it(`leaves the job reserved and says so when Redis cannot keep it either (${redis === 'down' ? 'Redis down' : 'no failed list'})`, async () => {
      const log: string[] = [];
      const reports: unknown[] = [];
      const recorder = new FailureRecorder(store(log, { down: true }));
      await failJob(job(log, { redis }), new Error('boom'), runner, recorder, {
        jobFailed: () => undefined,
        report: (e) => void reports.push(e),
      });
      expect(log).to.deep.equal(['log refused']);
      const named = reports.find((r) => r instanceof FailedJobNotRecordedError) as FailedJobNotRecordedError;
      expect(named.keptIn).to.equal('reserved');
      expect(named.message).to.contain('u-1').and.contain('stays reserved');
    });
  }

  it('after the store failed, sends failures straight to Redis for a pause that doubles, then tries the store again', async () => {
    const log: string[] = [];
    const state = { down: true };
    let now = 0;
    const recorder = new FailureRecorder(store(log, state), () => now);
    const reports: unknown[] = [];
    const record = () => recorder.record(job(log), new Error('boom'), (e) => void reports.push(e));
    expect(await record()).to.equal('redis'); // tried, refused: pause 1 s
    expect(await record()).to.equal('redis'); // within the pause: not tried
    expect(log.filter((l) => l.startsWith('log'))).to.have.length(1);
    now = 1000;
    expect(await record()).to.equal('redis'); // tried again, refused: pause 2 s
    now = 2500;
    expect(await record()).to.equal('redis'); // within the pause
    expect(log.filter((l) => l.startsWith('log'))).to.have.length(2);
    state.down = false;
    now = 3000;
    expect(await record()).to.equal('store');
    expect(await record()).to.equal('store');
    // The store's own error is reported once for the outage; each job kept in Redis is named.
    expect(
      reports.filter((r) => !(r instanceof FailedJobNotRecordedError)).map((r) => (r as Error).message),
    ).to.deep.equal(['table failed_jobs is missing']);
    expect(reports.filter((r) => r instanceof FailedJobNotRecordedError)).to.have.length(4);
  });
});
