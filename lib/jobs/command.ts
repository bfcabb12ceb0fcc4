// Reading an object job's command as Laravel's CallQueuedHandler::getCommand does (13.x): a command
// starting with `O:` is a plain serialized object; anything else is taken as encrypted with APP_KEY.
import { InvalidPayloadError, MissingEncrypterError } from '../errors';
import type { JobPayload } from '../payload/types';
import type { Encrypter } from '../php/Encrypter';
import { unserialize } from '../php/unserialize';
import { PhpObject } from '../php/values';

/**
 * The job object inside an object job's payload. Throws InvalidPayloadError (no command, or not an
 * object), UnserializeError, DecryptError or MissingEncrypterError, each naming what was wrong.
 */
export function decodeCommand(payload: JobPayload, encrypter?: Encrypter | null): PhpObject {
  const text = payload.command;
  const name = payload.commandName ?? payload.name;
  if (text === null) throw new InvalidPayloadError(`Job ${name} has no data.command string to run`, payload.raw);
  let serialized: string | Buffer = text;
  if (!text.startsWith('O:')) {
    if (!encrypter) {
      throw new MissingEncrypterError(
        `Job ${name} has an encrypted command (ShouldBeEncrypted); give the queue the app's APP_KEY to decrypt it`,
      );
    }
    // Bytes, not text: PHP strings are byte strings, and an encrypted command is the one place where
    // bytes that are not UTF-8 travel (json_encode refuses them in a plain payload). They are read as PhpBytes.
    serialized = encrypter.decryptBuffer(text);
  }
  const command = unserialize(serialized);
  if (!(command instanceof PhpObject)) {
    throw new InvalidPayloadError(`Job ${name}: data.command does not hold a PHP object`, payload.raw);
  }
  return command;
}
