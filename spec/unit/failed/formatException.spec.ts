// formatException: PHP's `(string) $exception` layout for JS errors (as `DatabaseFailedJobProvider::log` stores it).
import { expect } from 'chai';
import { formatException } from '../../../lib/failed/formatException';

/** An Error with a fixed V8 stack, so the expected text does not depend on where the spec runs. */
function withStack<E extends Error>(error: E, frames: string[]): E {
  error.stack = [`${error.name}: ${error.message}`, ...frames.map((f) => `    at ${f}`)].join('\n');
  return error;
}

describe('failed jobs: formatException', () => {
  it('renders head line, frames and {main} like PHP', () => {
    const e = withStack(new Error('boom'), [
      'inner (/app/jobs/send.js:10:11)',
      'Job.handle (/app/jobs/send.js:20:5)',
      'async Worker.process (/app/worker.js:30:7)',
      'new Thing (/app/thing.js:4:2)',
      '/app/anon.js:5:6',
      'JSON.parse (<anonymous>)',
      'Object.<anonymous> (file:///app/main.mjs:1:1)',
      'Object.run [as runMain] (node:internal/modules/run_main:128:12)',
    ]);
    expect(formatException(e)).to.equal(
      [
        'Error: boom in /app/jobs/send.js:10',
        'Stack trace:',
        '#0 /app/jobs/send.js(20): inner()',
        '#1 /app/worker.js(30): Job->handle()',
        '#2 /app/thing.js(4): Worker->process()',
        '#3 /app/anon.js(5): Thing->__construct()',
        '#4 [internal function]: {closure}()',
        '#5 /app/main.mjs(1): JSON->parse()',
        '#6 node:internal/modules/run_main(128): Object->{closure}()',
        '#7 [internal function]: Object->run()',
        '#8 {main}',
      ].join('\n'),
    );
  });

  it('leaves out ": message" when the message is empty', () => {
    const e = withStack(new Error(''), ['f (/app/a.js:3:1)']);
    expect(formatException(e)).to.equal('Error in /app/a.js:3\nStack trace:\n#0 [internal function]: f()\n#1 {main}');
  });

  it('uses the error name as the class, or the class name asked for', () => {
    const e = withStack(new RangeError('too big'), ['f (/app/a.js:3:1)']);
    expect(formatException(e).split('\n')[0]).to.equal('RangeError: too big in /app/a.js:3');
    expect(formatException(e, { className: 'App\\Exceptions\\TooBig' }).split('\n')[0]).to.equal(
      'App\\Exceptions\\TooBig: too big in /app/a.js:3',
    );
    class JobError extends Error {
      override name = 'JobError';
    }
    const named = withStack(new JobError('custom'), ['g (/app/b.js:7:1)']);
    expect(formatException(named).split('\n')[0]).to.equal('JobError: custom in /app/b.js:7');
  });

  it('renders the cause chain like PHP previous exceptions: innermost first, then "Next"', () => {
    const root = withStack(new Error('disk full'), ['write (/app/fs.js:1:1)', 'save (/app/repo.js:2:2)']);
    const middle = withStack(new Error('save failed', { cause: root }), ['save (/app/repo.js:3:3)']);
    const top = withStack(new TypeError('', { cause: middle }), ['handle (/app/job.js:4:4)']);
    expect(formatException(top)).to.equal(
      [
        'Error: disk full in /app/fs.js:1',
        'Stack trace:',
        '#0 /app/repo.js(2): write()',
        '#1 [internal function]: save()',
        '#2 {main}',
        '',
        'Next Error: save failed in /app/repo.js:3',
        'Stack trace:',
        '#0 [internal function]: save()',
        '#1 {main}',
        '',
        'Next TypeError in /app/job.js:4',
        'Stack trace:',
        '#0 [internal function]: handle()',
        '#1 {main}',
      ].join('\n'),
    );
  });

  it('asks a className function about every error of the chain', () => {
    const inner = withStack(new Error('a'), ['f (/x.js:1:1)']);
    const outer = withStack(new Error('b', { cause: inner }), ['g (/x.js:2:1)']);
    const text = formatException(outer, { className: (e) => (e === inner ? 'PDOException' : undefined) });
    expect(text).to.match(/^PDOException: a in \/x\.js:1\n/);
    expect(text).to.include('\n\nNext Error: b in /x.js:2\n');
  });

  it('ignores causes that are not errors and stops at cycles', () => {
    const e = withStack(new Error('top', { cause: 'a string' }), ['f (/x.js:1:1)']);
    expect(formatException(e)).to.not.include('Next');
    const a = withStack(new Error('a'), ['f (/x.js:1:1)']);
    const b = withStack(new Error('b', { cause: a }), ['g (/x.js:2:1)']);
    (a as { cause?: unknown }).cause = b;
    expect(formatException(b).match(/Next /g)).to.have.length(1);
  });

  it('keeps a multi-line message whole, even one that looks like a frame', () => {
    const e = new Error('line one\n    at not (/a/frame.js:1:1)\nline three');
    e.stack = `Error: ${e.message}\n    at real (/app/r.js:9:9)`;
    expect(formatException(e)).to.equal(
      'Error: line one\n    at not (/a/frame.js:1:1)\nline three in /app/r.js:9\nStack trace:\n#0 [internal function]: real()\n#1 {main}',
    );
  });

  it('keeps a message whose last line looks like a frame out of the frames', () => {
    const e = new Error('text\n    at fake (/a/frame.js:1:1)');
    e.stack = `Error: ${e.message}\n    at real (/app/r.js:9:9)`;
    expect(formatException(e).split('\n').slice(0, 4)).to.deep.equal([
      'Error: text',
      '    at fake (/a/frame.js:1:1) in /app/r.js:9',
      'Stack trace:',
      '#0 [internal function]: real()',
    ]);
  });

  it('falls back to Unknown:0 and a bare {main} without a stack', () => {
    const e = new Error('no stack');
    e.stack = undefined;
    expect(formatException(e)).to.equal('Error: no stack in Unknown:0\nStack trace:\n#0 {main}');
  });

  it('takes the position of the first frame that has one (errors thrown inside native code)', () => {
    const e = withStack(new SyntaxError('Unexpected token'), ['JSON.parse (<anonymous>)', 'decode (/app/d.js:5:10)']);
    expect(formatException(e).split('\n').slice(0, 4)).to.deep.equal([
      'SyntaxError: Unexpected token in /app/d.js:5',
      'Stack trace:',
      '#0 /app/d.js(5): JSON->parse()',
      '#1 [internal function]: decode()',
    ]);
  });

  it('uses the last position of an eval frame', () => {
    const e = withStack(new Error('x'), ['eval (eval at run (/app/e.js:3:7), <anonymous>:1:7)', 'run (/app/e.js:3:7)']);
    expect(formatException(e).split('\n')[0]).to.equal('Error: x in <anonymous>:1');
  });

  it('replaces lone surrogates, which have no UTF-8 form', () => {
    const e = withStack(new Error('bad \uD800 text \uDC00 ok 🎉'), ['f (/x.js:1:1)']);
    expect(formatException(e).split('\n')[0]).to.equal('Error: bad ? text ? ok 🎉 in /x.js:1');
  });

  it('describes a real error with this file and line', () => {
    const e = new Error('real');
    const line = Number(/:(\d+):\d+\)?$/.exec(String(e.stack).split('\n')[1])![1]);
    const text = formatException(e);
    expect(text.split('\n')[0]).to.equal(`Error: real in ${__filename}:${line}`);
    expect(text).to.match(/\nStack trace:\n#0 [^\n]+\(\d+\): [^\n]+\(\)\n/);
    expect(text).to.match(/\n#\d+ \{main\}$/);
  });
});
