// Root hooks shared by every spec file: a promise rejected with nobody to handle it fails the test that
// was running (a background task that throws into the void is a bug, in larq or in the spec): rethrown,
// it reaches mocha as an uncaught exception, which fails the running test and lets the run go on, as
// ioredis' test/helpers/global.ts does. The shared redis-server stops when the run ends.
import { stopRedis } from './redis';

const rethrow = (reason: unknown): never => {
  throw reason instanceof Error ? reason : new Error(`unhandled rejection: ${String(reason)}`);
};

export const mochaHooks = {
  beforeAll(): void {
    process.on('unhandledRejection', rethrow);
  },
  async afterAll(): Promise<void> {
    process.off('unhandledRejection', rethrow);
    await stopRedis();
  },
};
