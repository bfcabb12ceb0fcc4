// PHP's text for a float, as serialize() and json_encode() write it with serialize_precision = -1:
// the shortest digits that round-trip (JS finds the same ones), laid out the way zend_gcvt does with
// 17 digits of precision: fixed notation while the decimal point sits within 17 digits and the value is
// at least 1e-4, scientific otherwise, and a mantissa of one digit gets ".0" (`1.0E+25`).

/** Format a finite or non-finite double as PHP does; `exp` is 'E' for serialize(), 'e' for JSON. */
export function formatPhpFloat(n: number, exp: 'E' | 'e'): string {
  if (Number.isNaN(n)) return 'NAN';
  if (n === Infinity) return 'INF';
  if (n === -Infinity) return '-INF';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';

  const sign = n < 0 ? '-' : '';
  // toExponential() with no argument gives the shortest round-trip digits: d.ddddde±x
  const [mantissa, exponent] = Math.abs(n).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const decpt = Number(exponent) + 1; // value = 0.d1d2... x 10^decpt

  if (decpt < -3 || decpt > 17) {
    const frac = digits.length > 1 ? digits.slice(1) : '0';
    const e = decpt - 1;
    return `${sign}${digits[0]}.${frac}${exp}${e < 0 ? '-' : '+'}${Math.abs(e)}`;
  }
  if (decpt <= 0) return `${sign}0.${'0'.repeat(-decpt)}${digits}`;
  if (digits.length <= decpt) return `${sign}${digits}${'0'.repeat(decpt - digits.length)}`;
  return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
}
