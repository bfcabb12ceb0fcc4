// SQL drivers are optional peer dependencies: users who keep nothing in a database need none of them, so
// each is required only when a connection is opened, and a missing one says what to install.
import { MissingDependencyError } from '../errors';

/** require(`pkg`), turning "not installed" into a MissingDependencyError naming the package. */
export function loadDriver<T>(pkg: string, feature: string): T {
  try {
    return require(pkg) as T;
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    // Only the package itself being absent; an error inside it (a broken native build) is passed on.
    if (err.code === 'MODULE_NOT_FOUND' && typeof err.message === 'string' && err.message.includes(`'${pkg}'`)) {
      throw new MissingDependencyError(pkg.split('/')[0], feature, { cause: e });
    }
    throw e;
  }
}
