// A handlers module that holds LARQ_SPEC_BASELINE_MB of memory from the moment it loads, as a TypeScript
// loader or a large app does, and keeps LARQ_SPEC_GROW_MB more per App\Jobs\ChainStep job it runs.
import { Handlers } from '../../../lib/handlers/Handlers';

const held: Buffer[] = [Buffer.alloc(Number(process.env.LARQ_SPEC_BASELINE_MB ?? 0) * 1024 * 1024, 1)];

export default new Handlers().object('App\\Jobs\\ChainStep', () => {
  held.push(Buffer.alloc(Number(process.env.LARQ_SPEC_GROW_MB ?? 0) * 1024 * 1024, 1));
});
