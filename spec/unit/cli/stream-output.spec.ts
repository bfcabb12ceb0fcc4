// StreamOutput, the CLI's stdout: lines and captured writes (strings in any encoding, bytes, a character
// split across two writes) reach the file in the order written, within FLUSH_MS, and at once past
// MAX_BUFFERED.
import { expect } from 'chai';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { FLUSH_MS, MAX_BUFFERED, StreamOutput } from '../../../lib/cli/StreamOutput';

describe('StreamOutput', () => {
  let dir: string;
  let file: string;
  let fd: number;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'larq-stream-'));
    file = join(dir, 'out');
    fd = openSync(file, 'w');
  });
  afterEach(() => {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes lines and captured writes in order, once FLUSH_MS has passed', async () => {
    const out = new StreamOutput(fd);
    const stream = { write: () => true } as unknown as NodeJS.WriteStream;
    out.capture(stream);
    const euro = Buffer.from('€', 'utf8');
    out.line('RUNNING');
    stream.write(euro.subarray(0, 1));
    stream.write(euro.subarray(1));
    stream.write('\n');
    stream.write('4f4b0a', 'hex');
    let called = false;
    stream.write('cb\n', () => (called = true));
    out.line('DONE');
    expect(readFileSync(file, 'utf8')).to.equal('');
    await new Promise((r) => setTimeout(r, FLUSH_MS + 30));
    expect(readFileSync(file, 'utf8')).to.equal('RUNNING\n€\nOK\ncb\nDONE\n');
    expect(called).to.equal(true);
  });

  it('writes at once what passes MAX_BUFFERED, and flush() writes the rest', () => {
    const out = new StreamOutput(fd);
    const line = 'x'.repeat(99);
    const lines = Math.ceil(MAX_BUFFERED / 100) + 10;
    for (let i = 0; i < lines; i++) out.line(line);
    const early = readFileSync(file, 'utf8');
    expect(early.length).to.be.at.least(MAX_BUFFERED);
    expect(early.length).to.be.below(lines * 100);
    out.flush();
    expect(readFileSync(file, 'utf8')).to.equal(`${line}\n`.repeat(lines));
  });

  it('keeps the bytes and the place of lines larger than what it gathers, and of multi-byte text', () => {
    const out = new StreamOutput(fd);
    const huge = `${'é'.repeat(MAX_BUFFERED)}€`; // more bytes than the whole gathering buffer holds
    const lines = ['RUNNING', huge, 'naïve — 𝄞 ✓', 'x'.repeat(MAX_BUFFERED - 5), 'DONE'];
    for (const line of lines) out.line(line);
    out.flush();
    expect(readFileSync(file, 'utf8')).to.equal(lines.map((l) => `${l}\n`).join(''));
  });
});
