// The daemon's process signal handlers (Laravel's Worker::listenForSignals, 13.x): TERM, QUIT and INT stop gracefully (INT since 12.22; before
// that PHP died at once), USR2 pauses, CONT resumes. Node has no SIGALRM timeouts; see JobTimeouts.ts.

/** What the signals act on. */
export interface SignalTarget {
  stop(): void;
  pause(): void;
  resume(): void;
}

/** Install the handlers on `proc` (the process by default); returns the function that removes them. */
export function listenForSignals(target: SignalTarget, proc: NodeJS.EventEmitter = process): () => void {
  const handlers: [NodeJS.Signals, () => void][] = [
    ['SIGTERM', () => target.stop()],
    ['SIGQUIT', () => target.stop()],
    ['SIGINT', () => target.stop()],
    ['SIGUSR2', () => target.pause()],
    ['SIGCONT', () => target.resume()],
  ];
  const installed: [NodeJS.Signals, () => void][] = [];
  for (const [signal, handler] of handlers) {
    try {
      proc.on(signal, handler);
      installed.push([signal, handler]);
    } catch {
      // A platform without this signal (Windows has no USR2/CONT/QUIT): nothing to listen to.
    }
  }
  return () => {
    for (const [signal, handler] of installed) proc.removeListener(signal, handler);
  };
}
