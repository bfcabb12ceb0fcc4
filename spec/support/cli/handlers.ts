// The handlers module the CLI specs hand to `larq work --handlers`: ChainStep jobs, step 13 fails.
import { Handlers } from '../../../lib/handlers/Handlers';

export default new Handlers().object('App\\Jobs\\ChainStep', (command) => {
  if (command.step === 13) throw new Error('unlucky step');
});
