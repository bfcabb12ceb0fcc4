// What turns telemetry on: the --metrics address, --otel and the OTEL_* variables, and the queue option.
import { expect } from 'chai';
import { telemetryRequest } from '../../../lib/cli/telemetry';
import { InvalidOptionError } from '../../../lib/errors';
import { RedisQueue } from '../../../lib/RedisQueue';
import { parseListenAddress } from '../../../lib/telemetry/serveMetrics';

describe('telemetry options', function () {
  it('reads --metrics as PORT, HOST:PORT or [IPv6]:PORT', function () {
    expect(parseListenAddress('9464')).to.deep.equal({ host: undefined, port: 9464 });
    expect(parseListenAddress('127.0.0.1:9464')).to.deep.equal({ host: '127.0.0.1', port: 9464 });
    expect(parseListenAddress('[::1]:9464')).to.deep.equal({ host: '::1', port: 9464 });
    for (const bad of ['', 'x', '127.0.0.1:', ':9', '70000', '1.2.3.4:99999'])
      expect(() => parseListenAddress(bad), bad).to.throw(InvalidOptionError, /metrics/);
  });

  it('starts the SDK for --otel, or when the environment names an OTLP endpoint or exporter', function () {
    expect(telemetryRequest({}, {}).otel).to.equal(false);
    expect(telemetryRequest({ otel: true }, {}).otel).to.equal(true);
    expect(telemetryRequest({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).otel).to.equal(true);
    expect(telemetryRequest({}, { OTEL_TRACES_EXPORTER: 'otlp' }).otel).to.equal(true);
    expect(telemetryRequest({}, { OTEL_TRACES_EXPORTER: 'none' }).otel).to.equal(false);
    expect(telemetryRequest({}, { OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'true' }).otel).to.equal(false);
    expect(telemetryRequest({ metrics: '9464' }, {}).metrics).to.deep.equal({ host: undefined, port: 9464 });
  });

  it('refuses a telemetry option that is not a JobTracing or JobMetrics, naming it', function () {
    expect(() => new RedisQueue({ connection: { lazyConnect: true }, telemetry: { tracing: {} as never } })).to.throw(
      InvalidOptionError,
      /telemetry.*JobTracing/,
    );
    expect(() => new RedisQueue({ connection: { lazyConnect: true }, telemetry: 'on' as never })).to.throw(
      InvalidOptionError,
      /telemetry/,
    );
  });
});
