// PHP's declared types, as `larq types` maps them: for each property type, how make() converts a JS value
// (a PhpTypeKind, written into the module), what a handler receives (the view, after toPlain) and what
// make() takes (the input). docs/types.md has the table.
import type { ReflectedClass } from './reflection';

/** One member of a PHP type, resolved against the reflected classes. */
export type PhpTypeMember =
  | { kind: BuiltinKind }
  | { kind: 'enum'; className: string; cases: string[] }
  | { kind: 'model' | 'models' | 'date'; className: string }
  | { kind: 'object'; className: string };

/** The kinds of PHP's own types. */
export type BuiltinKind = 'int' | 'float' | 'string' | 'bool' | 'array' | 'null' | 'mixed';

const BUILTIN: Record<string, BuiltinKind> = {
  int: 'int',
  float: 'float',
  string: 'string',
  bool: 'bool',
  true: 'bool',
  false: 'bool',
  array: 'array',
  iterable: 'array',
  null: 'null',
  mixed: 'mixed',
  void: 'null',
};

/**
 * The members of PHP's text of a type (`?int`, `int|string|null`, `Shop\Enums\Status`); an untyped
 * property, an intersection or DNF type, and a class the reflector could not describe are `mixed`.
 */
export function parsePhpType(type: string | null, classes: ReadonlyMap<string, ReflectedClass>): PhpTypeMember[] {
  if (type === null || /[()&]/.test(type)) return [{ kind: 'mixed' }];
  const nullable = type.startsWith('?');
  const names = (nullable ? type.slice(1) : type).split('|');
  const members: PhpTypeMember[] = names.map((name) => member(name.replace(/^\\/, ''), classes));
  if (nullable) members.push({ kind: 'null' });
  if (members.some((m) => m.kind === 'mixed')) return [{ kind: 'mixed' }];
  return members;
}

function member(name: string, classes: ReadonlyMap<string, ReflectedClass>): PhpTypeMember {
  const builtin = BUILTIN[name.toLowerCase()];
  if (builtin !== undefined) return { kind: builtin };
  const c = classes.get(name);
  if (c === undefined) return { kind: 'mixed' };
  switch (c.kind) {
    case 'enum':
      return { kind: 'enum', className: name, cases: (c.cases ?? []).map((x) => x.name) };
    case 'model':
    case 'models':
    case 'date':
      return { kind: c.kind, className: name };
    case 'interface':
      return name === 'DateTimeInterface' || name === 'Carbon\\CarbonInterface'
        ? { kind: 'date', className: 'DateTimeInterface' }
        : { kind: 'mixed' };
    default:
      return { kind: 'object', className: name };
  }
}

const quote = (s: string): string => JSON.stringify(s);

/** The PhpTypeKind literal make() converts with; `names` gives a class's declaration name. */
export function kindSource(members: PhpTypeMember[], names: (className: string) => string): string {
  const one = (m: PhpTypeMember): string => {
    switch (m.kind) {
      case 'enum':
        return `{ enum: ${quote(m.className)} }`;
      case 'model':
      case 'models':
      case 'date':
        return `{ ${m.kind}: ${quote(m.className)} }`;
      case 'object':
        return `{ object: () => ${names(m.className)} }`;
      default:
        return quote(m.kind);
    }
  };
  const nonNull = members.filter((m) => m.kind !== 'null');
  if (nonNull.length === 0) return quote('null');
  if (nonNull.length === 1) return one(nonNull[0]);
  return `{ union: [${nonNull.map(one).join(', ')}] }`;
}

/** The TypeScript type of what a handler receives for a property of this type. */
export function viewType(members: PhpTypeMember[], names: (className: string) => string): string {
  return union(
    members.map((m) => {
      switch (m.kind) {
        case 'int':
        case 'float':
          return 'number';
        case 'bool':
          return 'boolean';
        case 'array':
          return 'PhpArrayView';
        case 'mixed':
          return 'unknown';
        case 'enum':
          return `PhpEnumCase<${quote(m.className)}, ${cases(m.cases)}>`;
        case 'model':
          return `ModelIdentifierView<${quote(m.className)}>`;
        case 'models':
          return 'ModelsIdentifierView';
        case 'date':
          return 'PhpDateView';
        case 'object':
          return names(m.className);
        default:
          return m.kind;
      }
    }),
  );
}

/** The TypeScript type of what make() takes for a property of this type. */
export function inputType(members: PhpTypeMember[], names: (className: string) => string): string {
  return union(
    members.map((m) => {
      switch (m.kind) {
        case 'int':
          return 'number | bigint';
        case 'float':
          return 'number';
        case 'bool':
          return 'boolean';
        case 'array':
          return 'PhpArrayInput';
        case 'mixed':
          return 'unknown';
        case 'enum':
          return `${cases(m.cases)} | PhpEnum`;
        case 'model':
          return 'ModelInput';
        case 'models':
          return 'ModelsInput';
        case 'date':
          return 'PhpDateInput';
        case 'object':
          return `${names(m.className)}Input | PhpObject`;
        default:
          return m.kind;
      }
    }),
  );
}

function cases(names: string[]): string {
  return names.length === 0 ? 'never' : names.map(quote).join(' | ');
}

function union(types: string[]): string {
  const parts = [...new Set(types)];
  return parts.includes('unknown') ? 'unknown' : parts.join(' | ');
}
