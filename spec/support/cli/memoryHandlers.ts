// The handlers module of the --memory specs: ChainStep jobs whose handler makes garbage (a few kB a job,
// kept by nothing) and, when LARQ_SPEC_LEAK_KB is set, also keeps that many kB a job for good: a leak.
import { Handlers } from '../../../lib/handlers/Handlers';

const kept: number[][] = [];

export default function handlers(): Handlers {
  const leakKb = Number(process.env.LARQ_SPEC_LEAK_KB ?? 0);
  return new Handlers().object('App\\Jobs\\ChainStep', (command) => {
    const garbage = Array.from({ length: 512 }, (_, i) => ({ step: command.step, i }));
    if (garbage.length !== 512) throw new Error('unreachable');
    if (leakKb > 0) kept.push(new Array<number>((leakKb * 1024) / 8).fill(Number(command.step)));
  });
}
