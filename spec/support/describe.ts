// Conversion between the PHP value model and the fixtures' language-neutral description (`Described`),
// which the interop tests also get from PHP. Ints outside JS's safe range are written as decimal
// strings; read fixture files with parseJsonExact() so such ints are not rounded by JSON.parse.
import { readFileSync } from 'fs';
import { join } from 'path';
import { formatPhpFloat } from '../../lib/php/float';
import {
  PhpArray,
  PhpArrayKey,
  PhpBytes,
  PhpCustomObject,
  PhpEnum,
  PhpObject,
  PhpReference,
  PhpValue,
} from '../../lib/php/values';
import { Described, Fixture, FIXTURE_DIR } from './fixtures';

/** Describe a PHP value in the fixtures' format (floats as PHP's var_export text, e.g. "2.0"). */
export function describe(value: PhpValue): Described {
  return describeIn(value, []);
}

function describeIn(value: PhpValue, path: (PhpArray | PhpObject)[]): Described {
  if (value === null) return { t: 'null' };
  if (typeof value === 'boolean') return { t: 'bool', v: value };
  if (typeof value === 'bigint') return { t: 'int', v: intText(value) };
  if (typeof value === 'number') return { t: 'float', v: floatText(value) };
  if (typeof value === 'string') return { t: 'string', v: value };
  if (value instanceof PhpEnum) return { t: 'enum', class: value.className, case: value.caseName };
  if (value instanceof PhpReference) {
    if (value.target === undefined) throw new Error(`describe: unresolved reference ${value.kind}:${value.index}`);
    return describeIn(value.target, path);
  }
  if (value instanceof PhpBytes || value instanceof PhpCustomObject) {
    throw new Error(`describe: ${value.constructor.name} has no form in the description format`);
  }
  if (path.includes(value)) throw new Error('describe: the value contains itself');
  const inner = [...path, value];
  if (value instanceof PhpArray) {
    return {
      t: 'array',
      entries: [...value.entries].map(([k, v]) => ({
        k: typeof k === 'bigint' ? keyNumber(k) : k,
        v: describeIn(v, inner),
      })),
    };
  }
  return {
    t: 'object',
    class: value.className,
    props: value.properties.map((p) => ({
      name: p.name,
      visibility: p.visibility,
      ...(p.visibility === 'private' && p.declaringClass ? { declaringClass: p.declaringClass } : {}),
      value: describeIn(p.value, inner),
    })),
  };
}

/** Build the PHP value a description stands for (int `v` as a number must be a safe integer). */
export function fromDescribed(d: Described): PhpValue {
  switch (d.t) {
    case 'null':
      return null;
    case 'bool':
      return d.v;
    case 'int':
      if (typeof d.v === 'number' && !Number.isSafeInteger(d.v))
        throw new Error(`fromDescribed: int ${d.v} was rounded by JSON.parse; use parseJsonExact`);
      return BigInt(d.v);
    case 'float':
      return d.v === 'NAN' ? NaN : d.v === 'INF' ? Infinity : d.v === '-INF' ? -Infinity : Number(d.v);
    case 'string':
      return d.v;
    case 'enum':
      return new PhpEnum(d.class, d.case);
    case 'array':
      return new PhpArray(
        d.entries.map((e): [PhpArrayKey, PhpValue] => [
          typeof e.k === 'number' ? BigInt(e.k) : e.k,
          fromDescribed(e.v),
        ]),
      );
    case 'object':
      return new PhpObject(
        d.class,
        d.props.map((p) => ({
          name: p.name,
          visibility: p.visibility,
          ...(p.declaringClass ? { declaringClass: p.declaringClass } : {}),
          value: fromDescribed(p.value),
        })),
      );
  }
}

/** JSON.parse, except that integers beyond 2^53 come back as decimal strings instead of rounded numbers. */
export function parseJsonExact(text: string): unknown {
  // Strings are matched first so digits inside them are left alone.
  const marked = text.replace(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, (token) =>
    /^-?\d+$/.test(token) && !Number.isSafeInteger(Number(token)) ? `"${token}"` : token,
  );
  return JSON.parse(marked);
}

/** A fixture's `job` description read exactly (big ints as strings), or undefined when it has none. */
export function exactJob(f: Fixture): Described | undefined {
  const data = parseJsonExact(readFileSync(join(FIXTURE_DIR, f.version, `${f.name}.json`), 'utf8')) as {
    job?: Described;
  };
  return data.job;
}

function intText(n: bigint): number | string {
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString();
}

function keyNumber(k: bigint): number {
  if (k < BigInt(Number.MIN_SAFE_INTEGER) || k > BigInt(Number.MAX_SAFE_INTEGER))
    throw new Error(`describe: array key ${k} has no exact JSON number`);
  return Number(k);
}

// var_export's text: serialize()'s digits, with ".0" on an integral value ("2.0", "-0.0", "1.0E+25").
function floatText(n: number): string {
  const text = formatPhpFloat(n, 'E');
  return /^-?\d+$/.test(text) ? `${text}.0` : text;
}
