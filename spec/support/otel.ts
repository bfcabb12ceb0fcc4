// An OpenTelemetry SDK for specs: spans kept in memory, the W3C propagator and AsyncLocalStorage context,
// registered globally for one describe block and taken down after it.
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';

/** Register an in-memory tracing SDK for the enclosing describe; `spans()` lists the ended spans. */
export function useInMemoryTracing(): { spans(): ReadableSpan[]; reset(): void } {
  const exporter = new InMemorySpanExporter();
  before(() => {
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });
  afterEach(() => exporter.reset());
  after(() => {
    trace.disable();
    context.disable();
    propagation.disable();
  });
  return { spans: () => exporter.getFinishedSpans(), reset: () => exporter.reset() };
}

/** A W3C traceparent as the PHP side would write it, for a fresh trace. */
export function phpTraceparent(): { traceparent: string; traceId: string; spanId: string } {
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join('');
  const traceId = hex(32);
  const spanId = hex(16);
  return { traceparent: `00-${traceId}-${spanId}-01`, traceId, spanId };
}
