// Root hooks shared by every spec file.
import { stopRedis } from './redis';

export const mochaHooks = {
  afterAll(): void {
    stopRedis();
  },
};
