// Batch ids: larq's orderedUuid against Laravel's own Str::orderedUuid (8.83 from Debian; 12.x and 13.x
// build it the same way, from ramsey/uuid's CombGenerator and TimestampFirstCombCodec). Ids from either
// side, made around the same moment, carry the same clock in the same units and sort together.
import { expect } from 'chai';
import { execFileSync } from 'child_process';
import { version } from 'uuid';
import { requirePhp } from '../support/php';
import { orderedUuid } from '../../lib/uuid';

const PHP = `require "/usr/share/php/Illuminate/Support/autoload.php";
echo Illuminate\\Support\\Str::orderedUuid(), "\\n";`;

const timeOf = (id: string) => parseInt(id.replace(/-/g, '').slice(0, 12), 16);

describe('orderedUuid against PHP Str::orderedUuid', function () {
  this.timeout(30000);
  before(function () {
    requirePhp(this);
  });

  it('writes the time in the same place and units, so ids from PHP and Node interleave in time order', () => {
    const before = orderedUuid();
    const php = execFileSync('php', ['-r', PHP], { encoding: 'utf8' }).trim();
    const after = orderedUuid();
    expect(version(php)).to.equal(4);
    expect(version(before)).to.equal(4);
    // PHP's id was made between ours: its time prefix lies between theirs (ours have millisecond
    // resolution, so PHP's may exceed `before`'s by up to 99 units of the same millisecond)
    expect(timeOf(php)).to.be.within(timeOf(before), timeOf(after) + 99);
    expect([after, php, before].sort()).to.deep.equal([before, php, after]);
  });
});
