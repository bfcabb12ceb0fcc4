// Batch ids: larq's orderedUuid against Laravel's own Str::orderedUuid on every Laravel line of the
// harness (each builds it from ramsey/uuid's CombGenerator and TimestampFirstCombCodec). Ids from either
// side, made around the same moment, carry the same clock in the same place and units, and sort together.
import { expect } from 'chai';
import { execFileSync } from 'child_process';
import { join } from 'path';
import { version } from 'uuid';
import { LARAVEL_LINES, laravelEnv, PHP_DIR, requirePhp } from '../support/php';
import { orderedUuid } from '../../lib/uuid';

const PHP = `require ${JSON.stringify(join(PHP_DIR, 'laravel.php'))};
larq_load_laravel();
echo Illuminate\\Support\\Str::orderedUuid(), "\\n";`;

const timeOf = (id: string) => parseInt(id.replace(/-/g, '').slice(0, 12), 16);

for (const line of LARAVEL_LINES) {
  describe(`orderedUuid against PHP Str::orderedUuid (Laravel ${line})`, function () {
    this.timeout(30000);
    before(function () {
      requirePhp(this, line);
    });

    it('writes the time in the same place and units, so ids from PHP and Node interleave in time order', () => {
      const before = orderedUuid();
      const php = execFileSync('php', ['-r', PHP], {
        encoding: 'utf8',
        env: { ...process.env, ...laravelEnv(line) },
      }).trim();
      const after = orderedUuid();
      expect(version(php)).to.equal(4);
      expect(version(before)).to.equal(4);
      // PHP's id was made between ours: its time lies between theirs (ours count whole milliseconds, so
      // PHP's may run up to 99 units of 10 microseconds past the millisecond `after` shows)
      expect(timeOf(php)).to.be.within(timeOf(before), timeOf(after) + 99);
      expect([after, php, before].sort()).to.deep.equal([before, php, after]);
    });
  });
}
