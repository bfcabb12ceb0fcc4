// What a dispatched job leaves to the garbage collector: garbage that the next minor collection frees, as
// the worker's finished jobs are (worker-garbage.spec.ts). A push the queue keeps reachable past its
// reply, even only through objects that are garbage themselves but sit in the old generation, is copied
// by each minor collection and then promoted, and only a full collection frees it.
//
// Measured as an app dispatches: a process of its own whose callers share one RedisQueue, each pushing
// one job at a time, now and then one of them busy with a big request of its own (support/
// dispatchConcurrently.ts), with V8's own trace of each minor collection (--trace-gc-nvp: `allocated`
// since the last one, `new_space_survived`).
import { expect } from 'chai';
import { spawn } from 'child_process';
import type Redis from 'ioredis';
import { compileCli, type CompiledCli } from '../support/compiled';
import { appFreeEnv } from '../support/larqProcess';
import { minorCollections, steadyShareKept, type MinorCollection } from '../support/minorCollections';
import { randomPrefix, rawClient, requireRedis } from '../support/redis';

const JOBS = 60_000;
const MODULE = 'spec/support/dispatchConcurrently.ts';

describe('the garbage a dispatched job leaves', function () {
  this.timeout(120_000);
  let port: number;
  let client: Redis;
  let cli: CompiledCli | undefined;

  before(async function () {
    port = await requireRedis(this);
    client = rawClient(port);
    cli = compileCli([MODULE, 'spec/support/phpJobs.ts']);
  });
  after(() => {
    client?.disconnect();
    cli?.remove();
  });

  // Each minor collection of a process pushing JOBS jobs through `callers` concurrent callers: what it had
  // allocated since the last one and what survived it.
  async function collectionsOfDispatcher(callers: number): Promise<MinorCollection[]> {
    const prefix = randomPrefix();
    const child = spawn(process.execPath, ['--trace-gc-nvp', cli!.compiled(MODULE)], {
      env: appFreeEnv({
        LARQ_DISPATCH_PORT: String(port),
        LARQ_DISPATCH_PREFIX: prefix,
        LARQ_DISPATCH_JOBS: String(JOBS),
        LARQ_DISPATCH_CALLERS: String(callers),
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code, stderr).to.equal(0);
    expect(await client.llen(`${prefix}queues:default`)).to.equal(JOBS);
    await client.del(`${prefix}queues:default`, `${prefix}queues:default:notify`);
    return minorCollections(stdout);
  }

  // What the pushes in flight may hold at a collection: one at 1 caller, 50 at 50. Before the change that
  // brought this spec, at 50 callers every push a collection saw survived it (AtMostOnceCommand kept its
  // socket's unanswered commands in a Set that never emptied): 10 to 11% of what was allocated, big
  // requests' garbage included. Now 0.6% at 50 callers and 0.04% at 1.
  const cases = [
    { callers: 1, bound: 0.01 },
    { callers: 50, bound: 0.05 },
  ];
  for (const { callers, bound } of cases) {
    it(`with ${callers} concurrent caller${callers === 1 ? '' : 's'}, a minor collection keeps at most ${bound * 100}% of what the process allocated`, async () => {
      const { count, share } = steadyShareKept(await collectionsOfDispatcher(callers));
      expect(count, 'minor collections in the second half').to.be.at.least(8);
      expect(share).to.be.below(bound);
    });
  }
});
