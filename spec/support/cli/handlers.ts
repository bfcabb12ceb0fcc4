// The handlers module the CLI specs hand to `larq work --handlers`, exported as a (async) factory the way
// a user might: ChainStep jobs (step 13 throws, step 99 takes a while) and encrypted SecretJob jobs, whose
// card is appended to the file LARQ_SPEC_OUT names, proving the command was decrypted with APP_KEY.
import { appendFileSync } from 'fs';
import { Handlers } from '../../../lib/handlers/Handlers';

export default async function handlers(): Promise<Handlers> {
  return new Handlers()
    .object('App\\Jobs\\ChainStep', async (command) => {
      if (command.step === 13) throw new Error('unlucky step');
      if (command.step === 99) await new Promise((resolve) => setTimeout(resolve, 1500));
    })
    .object('App\\Jobs\\SecretJob', (command) => {
      appendFileSync(process.env.LARQ_SPEC_OUT!, `${String(command.card)}\n`);
    });
}
