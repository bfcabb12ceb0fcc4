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
      throw new MissingDependencyError(packageOf(pkg), feature, { cause: e });
    }
    throw e;
  }
}

// The package a module path belongs to: `pg`, `mysql2/promise` -> `mysql2`, `@opentelemetry/api` as it is.
function packageOf(path: string): string {
  const parts = path.split('/');
  return parts[0].startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}
