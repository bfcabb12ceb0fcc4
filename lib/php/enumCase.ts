// PHP enums in job data. serialize() writes an enum case as its class and case name only (`E:..:"Class:Case";`),
// never its backing value, so toPlain hands cases over as PhpEnum and enumCase turns one into a typed case name.
import { PhpEnumCaseError } from '../errors';
import { PhpEnum } from './values';

/**
 * The case name of a PHP enum value from a job, checked: `value` must be a PhpEnum of `enumClass` whose
 * case is one of `cases`. `enumCase(job.status, 'App\\Enums\\Status', ['Paid', 'Open'])` is typed
 * `'Paid' | 'Open'`. Throws PhpEnumCaseError naming what was found instead.
 */
export function enumCase<const C extends string>(value: unknown, enumClass: string, cases: readonly C[]): C {
  if (!(value instanceof PhpEnum)) throw new PhpEnumCaseError(enumClass, `got ${describe(value)}`);
  if (value.className !== enumClass) throw new PhpEnumCaseError(enumClass, `got ${value.className}::${value.caseName}`);
  if (!(cases as readonly string[]).includes(value.caseName)) {
    throw new PhpEnumCaseError(enumClass, `${value.caseName} is not one of ${cases.join(', ')}`);
  }
  return value.caseName as C;
}

/** Whether `value` is a case of the PHP enum `enumClass` (any case). */
export function isEnumOf(value: unknown, enumClass: string): value is PhpEnum {
  return value instanceof PhpEnum && value.className === enumClass;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return `an object (${value.constructor?.name ?? 'no class'}), not a PHP enum case`;
  return `${typeof value} ${String(value)}`;
}
